"""One rule for disabled hosts (COMPUTE_STATUS_DISABLED on a tree's root, as
Nova sets it and filters with root_required): the overview's Free and
headroom both leave the tree out and say so, and the forest, the provider
pages and provider_tree (text and DOT) mark every provider of it, naming
the trait."""
import json

import pytest
from django.utils.html import strip_tags

from placement_core.querystring import Flavor
from planning.headroom import headroom
from providers.models import Inventory
from tests.commands.helpers import run
from tests.support.world import World

pytestmark = pytest.mark.django_db

TRAIT = "COMPUTE_STATUS_DISABLED"


@pytest.fixture
def cloud():
    w = World()
    w.cn1 = w.provider("cn1", inventory={"MEMORY_MB": 4096})
    w.cn1_numa = w.provider("cn1-numa0", parent=w.cn1, inventory={"VCPU": 16})
    w.cn2 = w.provider("cn2", inventory={"MEMORY_MB": 4096}, traits=[TRAIT])
    w.cn2_numa = w.provider("cn2-numa0", parent=w.cn2, inventory={"VCPU": 8})
    w.allocate(w.cn1_numa, "VCPU", 4)
    w.allocate(w.cn2_numa, "VCPU", 2)
    return w


def _free_on_enabled_trees(rc):
    """Counted another way: per inventory row, skip the trees whose root
    carries the trait."""
    free = 0
    for inv in Inventory.objects.filter(resource_class__name=rc).select_related(
            "resource_provider__root"):
        root = inv.resource_provider.root or inv.resource_provider
        if root.traits.filter(name=TRAIT).exists():
            continue
        used = sum(a.used for a in inv.resource_provider.allocations.filter(
            resource_class__name=rc))
        free += inv.capacity - used
    return free


def test_overview_free_leaves_out_disabled_trees_as_headroom_does(staff, cloud):
    assert _free_on_enabled_trees("VCPU") == 12
    assert headroom([Flavor("one", {"VCPU": 1})])["one"]["cloud"] == 12
    html = staff.get("/console/").content.decode()
    row = html.split('id="totals"')[1].split("</table>")[0].split("<td>VCPU</td>")[1]
    cells = [strip_tags(c).strip() for c in row.split("</tr>")[0].split("</td>")]
    assert cells[3] == "24" and cells[4] == "6"  # capacity and used: the whole cloud
    assert cells[5] == "12"  # free: the enabled trees only, as headroom counts
    note = strip_tags(html.split('id="disabled-note"')[1].split("</p>")[0])
    assert "1 disabled host" in note and TRAIT in note and "headroom" in note
    csv = b"".join(staff.get("/console/", {"table": "totals", "format": "csv"})
                   .streaming_content).decode()
    assert "VCPU,24,0,1.0,1.0,24,6,12" in csv


def test_every_provider_of_a_disabled_tree_is_marked(staff, cloud):
    forest = staff.get("/console/forest/").content.decode()
    assert forest.count('class="tag disabled"') == 2  # cn2 and its NUMA cell
    assert f'title="{TRAIT}' in forest
    page = staff.get(f"/console/providers/{cloud.cn2_numa.uuid}/").content.decode()
    assert 'class="tag disabled"' in page.split("</h1>")[0]
    page = staff.get(f"/console/providers/{cloud.cn1_numa.uuid}/").content.decode()
    assert 'class="tag disabled"' not in page.split("</h1>")[0]
    listing = staff.get("/console/providers/").content.decode()
    assert listing.count('class="tag disabled"') == 2


def test_provider_tree_text_dot_and_json_mark_them(cloud):
    code, out = run("provider_tree")
    assert code == 0
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert f"disabled ({TRAIT})" in lines["cn2"]
    assert f"disabled ({TRAIT} on its root)" in lines["cn2-numa0"]
    assert "disabled" not in lines["cn1"] + lines["cn1-numa0"]
    code, dot = run("provider_tree", "--format", "dot")
    node = dot.split(f'"{cloud.cn2_numa.uuid}" [')[1].split("];")[0]
    assert f"disabled ({TRAIT} on its root)" in node and "style=dashed" in node
    assert "disabled" not in dot.split(f'"{cloud.cn1.uuid}" [')[1].split("];")[0]
    code, data = run("provider_tree", "--json")
    marked = {n["name"]: n["disabled"] for n in json.loads(data)["resource_providers"]}
    assert marked == {"cn1": False, "cn1-numa0": False, "cn2": True, "cn2-numa0": True}
