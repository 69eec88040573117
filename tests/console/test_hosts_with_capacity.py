"""The provider list's "Has capacity for" answers per host, as the
candidates engine does: a nested host's NUMA cells, NIC and the sharing
pool in its aggregate count together (no single provider of a NUMA host
has both VCPU and MEMORY_MB)."""
import csv
import io

import pytest

from tests.console import hosts_cloud
from tests.console.api_cloud import MV
from tests.support.api import PlacementClient

pytestmark = pytest.mark.django_db

QUERIES = ("VCPU:2,MEMORY_MB:512", "VCPU:2,MEMORY_MB:512,DISK_GB:100",
           "VCPU:1,SRIOV_NET_VF:1", "PCPU:4,MEMORY_MB:1024", "DISK_GB:1000",
           "MEMORY_MB:20000", "VCPU:100")


def console_hosts(staff, resources):
    """The uuids the console's list holds (its CSV: every row, not a page)."""
    resp = staff.get("/console/providers/", {"resources": resources, "format": "csv"})
    assert resp.status_code == 200
    rows = list(csv.reader(io.StringIO(b"".join(resp.streaming_content).decode())))
    return {row[0] for row in rows[1:]}


def test_hosts_are_the_roots_of_the_candidates(staff):
    api = PlacementClient()
    rp, _ = hosts_cloud.build(api)
    name_of = {u: n for n, u in rp.items()}
    for resources in QUERIES:
        expected = hosts_cloud.candidate_roots(api, resources)
        assert console_hosts(staff, resources) == expected, resources
    # Counted by hand from the cloud: small's cells have one VCPU free each,
    # full's memory is taken, flat's own disk is too small, only big has VFs.
    assert {name_of[u] for u in hosts_cloud.candidate_roots(api, QUERIES[0])} == {
        "big", "lonely", "flat"}
    assert {name_of[u] for u in console_hosts(staff, QUERIES[1])} == {"big"}
    assert {name_of[u] for u in console_hosts(staff, "VCPU:1,SRIOV_NET_VF:1")} == {"big"}
    assert {name_of[u] for u in console_hosts(staff, "DISK_GB:1000")} == {"pool"}
    assert console_hosts(staff, "VCPU:100") == set()
    html = staff.get("/console/providers/", {"resources": QUERIES[0]}).content.decode()
    assert '<span id="provider-count">3 hosts</span> can take' in html
    for name in ("big", "lonely", "flat"):
        assert f'">{name}</a>' in html
    assert '">small</a>' not in html and '">big-numa0</a>' not in html


def test_a_hosts_capacity_is_its_trees(staff):
    """Each host listed shows its whole tree's capacity and usage per class
    (the VCPU of its NUMA cells beside the root's MEMORY_MB), summed from
    the API's inventories and usages of every provider of the tree."""
    api = PlacementClient()
    rp, _ = hosts_cloud.build(api)
    html = staff.get("/console/providers/", {"resources": "VCPU:1"}).content.decode()
    row = html.split(f'href="/console/providers/{rp["big"]}/"')[1].split("</tr>")[0]
    tree = [p["uuid"] for p in api.get(f"/resource_providers?in_tree={rp['big']}", mv=MV)
            .json()["resource_providers"]]
    for rc in ("VCPU", "PCPU", "MEMORY_MB", "SRIOV_NET_VF"):
        capacity = used = 0
        for u in tree:
            inv = api.get(f"/resource_providers/{u}/inventories", mv=MV).json()[
                "inventories"].get(rc)
            if inv:
                capacity += int((inv["total"] - inv["reserved"]) * inv["allocation_ratio"])
            used += api.get(f"/resource_providers/{u}/usages", mv=MV).json()["usages"].get(rc, 0)
        line = row.split(f'<span class="rc">{rc}</span>')[1].split("</div>")[0]
        assert f'data-sort="{used}"' in line and f'data-sort="{capacity}"' in line, rc


def test_other_filters_narrow_the_hosts(staff):
    api = PlacementClient()
    rp, _ = hosts_cloud.build(api)
    html = staff.get("/console/providers/", {"resources": QUERIES[0], "q": "lon"}).content.decode()
    assert '<span id="provider-count">1 host</span>' in html and '">lonely</a>' in html


@pytest.mark.parametrize("text, words", [
    ("VCPU", "Badly formed resources parameter"),
    ("CUSTOM_NOPE:1", "No such resource class CUSTOM_NOPE"),
    ("VCPU:1&limit=1", "expected positive integer amount"),
])
def test_a_bad_request_is_shown_not_raised(staff, text, words):
    api = PlacementClient()
    hosts_cloud.build(api)
    resp = staff.get("/console/providers/", {"resources": text})
    assert resp.status_code == 200
    html = resp.content.decode()
    assert words in html and '<span id="provider-count">0 hosts</span>' in html


def test_the_fields_example_finds_hosts_on_the_demo_cloud(staff):
    from tests.commands.helpers import run
    assert run("demo_cloud")[0] == 0
    api = PlacementClient()
    example = "VCPU:2,MEMORY_MB:512"  # the field's placeholder
    assert f'placeholder="{example}"' in staff.get("/console/providers/").content.decode()
    expected = hosts_cloud.candidate_roots(api, example)
    assert len(expected) >= 3  # compute-01..04 all have room for a small instance
    assert console_hosts(staff, example) == expected
    html = staff.get("/console/providers/", {"resources": example}).content.decode()
    assert f'<span id="provider-count">{len(expected)} hosts</span>' in html
