"""A scheduling failure read back on the console: every removed provider
accounted for ("and N more"), amounts in the class's unit everywhere (the
steps, the trees, the verdict, the listing), the max_unit a refused claim
broke, and times as the rest of the console shows them. Counted by hand on
thirteen nested hosts with a sharing disk pool."""
import json
import re
import uuid
from html import unescape

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils.html import strip_tags

from planning import failures
from planning.models import SchedulingFailure

pytestmark = pytest.mark.django_db
HEADERS = {"HTTP_X_AUTH_TOKEN": "nova:svc", "HTTP_X_ROLES": "service",
           "HTTP_OPENSTACK_API_VERSION": "placement 1.39"}
HOSTS = 13
QUERY = "resources=VCPU:1,MEMORY_MB:300000,DISK_GB:10"


@pytest.fixture
def recorded(world):
    """Thirteen hosts (memory on the root, max_unit 128 GiB; VCPU on a NUMA
    cell) and a disk pool they share; then a request for 300000 MB and a
    claim of as much on one host."""
    failures.explanations.reset()
    rack = world.aggregate()
    world.provider("pool", inventory={"DISK_GB": 1000}, traits=["MISC_SHARES_VIA_AGGREGATE"],
                   aggs=[rack])
    hosts = []
    for i in range(HOSTS):
        host = world.provider(f"cn{i:02d}", inventory={
            "MEMORY_MB": {"total": 262144, "max_unit": 131072}}, aggs=[rack])
        world.provider(f"cn{i:02d}-numa0", parent=host, inventory={"VCPU": 16})
        hosts.append(host)
    client = Client()
    assert client.get(f"/allocation_candidates?{QUERY}", **HEADERS).status_code == 200
    body = {"allocations": {hosts[0].uuid: {"resources": {"MEMORY_MB": 300000}}},
            "project_id": "p", "user_id": "u", "consumer_generation": None,
            "consumer_type": "INSTANCE"}
    assert client.put(f"/allocations/{uuid.uuid4()}", json.dumps(body),
                      content_type="application/json", **HEADERS).status_code == 409
    staff = Client()
    staff.force_login(get_user_model().objects.create_user("op", password="pw", is_staff=True))
    return staff, {f.kind: f for f in SchedulingFailure.objects.all()}


def _text(html):
    main = html.split("<main", 1)[1].split("</main>", 1)[0]
    return unescape(strip_tags(main.split(">", 1)[1].replace("<br>", "\n")))


def test_every_removed_provider_is_accounted_for(recorded):
    staff, records = recorded
    html = staff.get(f"/console/failures/{records['candidates'].pk}/").content.decode()
    rows = {}
    for row in re.findall(r"<tr><td class=\"mono\">.*?</tr>", html, re.S):
        cells = [_text(f"<main>{c}</main>") for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        rows[(cells[0], cells[1])] = cells
    # By hand: 13 roots and 13 cells have no DISK_GB (the pool does); 13
    # cells and the pool have no memory; the 13 roots' max_unit is under
    # 300000; 13 roots and the pool have no VCPU. Five are listed of each.
    expected = {("resources=DISK_GB:10", "resource_class_missing"): 2 * HOSTS,
                ("resources=MEMORY_MB:300000", "resource_class_missing"): HOSTS + 1,
                ("resources=MEMORY_MB:300000", "max_unit"): HOSTS,
                ("resources=VCPU:1", "resource_class_missing"): HOSTS + 1,
                ("resources=MEMORY_MB:300000", "max_unit (trees)"): HOSTS}
    for key, removed in expected.items():
        cells = rows[key]
        assert int(cells[2]) == removed
        assert len(re.findall(r"\b(?:cn\d\d(?:-numa0)?|pool): ", cells[4])) == failures.SHOW
        assert f"and {removed - failures.SHOW} more" in cells[4], cells[4]
    # The pool, the one tree without memory, is listed whole.
    assert "more" not in rows[("resources=MEMORY_MB:300000", "resource_class_missing (trees)")][4]


def test_amounts_in_units_everywhere(recorded):
    staff, records = recorded
    html = staff.get(f"/console/failures/{records['candidates'].pk}/").content.decode()
    text = _text(html)
    # 131072 MB is 128 GiB; 300000 MB is 292.97 GiB: shown as 293.0 GiB, the raw
    # figure on hover only.
    assert "131072" not in text and "131,072" not in text, text
    assert "300000 MEMORY_MB" not in text
    verdict = _text("<main>" + html.split('id="verdict"', 1)[1].split("</p>", 1)[0] + "</main>")
    assert "closest: cn00 (asked 293.0 GiB MEMORY_MB > max_unit 128 GiB)" in verdict
    assert "closest: cn03 (asked 293.0 GiB MEMORY_MB > max_unit 128 GiB)" in text
    listing = _text(staff.get("/console/failures/").content.decode())
    assert "131072" not in listing and "max_unit 128 GiB" in listing


def test_a_refused_claim_names_the_max_unit_it_broke(recorded):
    staff, records = recorded
    claim = records["claim"]
    assert claim.reason == "unit_constraints"
    assert claim.explanation["max_unit"] == 131072
    assert claim.summary == "cn00: asked 300000 MEMORY_MB > max_unit 131072"
    body = json.loads(Client().get("/planning/failures?kind=claim",
                                   HTTP_X_AUTH_TOKEN="admin").content)
    assert body["failures"][0]["summary"] == claim.summary
    page = _text(staff.get(f"/console/failures/{claim.pk}/").content.decode())
    assert "cn00: asked 293.0 GiB MEMORY_MB > max_unit 128 GiB" in page
    listing = _text(staff.get("/console/failures/").content.decode())
    assert "cn00: asked 293.0 GiB MEMORY_MB > max_unit 128 GiB" in listing


def test_times_read_as_the_console_shows_them(recorded):
    staff, records = recorded
    iso = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")
    for path in ("/console/failures/", f"/console/failures/{records['claim'].pk}/"):
        text = _text(staff.get(path).content.decode())
        assert not iso.search(text), iso.search(text)[0]
        shown = records["claim"].created_at.strftime("%Y-%m-%d %H:%M:%S")
        assert shown in text
