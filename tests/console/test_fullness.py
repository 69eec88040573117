"""Sorting and filtering providers by how full they are, on the server and
across pages, and the full-hosts page: every figure checked against a count
made another way (the API's own inventories and usages of each provider),
on nested trees and a sharing provider."""
import csv
import io
import math
import re
import uuid

import pytest

from console import views
from tests.console.api_cloud import MV, api_allocate, api_provider

pytestmark = pytest.mark.django_db


@pytest.fixture
def cloud(api):
    """Three nested hosts (memory and disk on the root, VCPU on two NUMA
    cells, bandwidth on a NIC), a shared disk pool, an empty host; amounts
    chosen so that every provider's fullest class differs."""
    agg = str(uuid.uuid4())
    pool = api_provider(api, "pool", inventory={"DISK_GB": {"total": 1000, "reserved": 100}},
                     traits=["MISC_SHARES_VIA_AGGREGATE"], aggregates=[agg])
    names = {pool: "pool"}
    hosts = {}
    for i, (mem_used, cpu0, cpu1, disk) in enumerate(
            [(30000, 30, 10, 450), (8000, 62, 2, 90), (60000, 4, 4, 300)]):
        root = api_provider(api, f"host{i}", inventory={
            "MEMORY_MB": {"total": 65536, "reserved": 2048},
            "DISK_GB": {"total": 500, "allocation_ratio": 1.0}}, aggregates=[agg])
        numa = [api_provider(api, f"host{i}-numa{j}", parent=root,
                          inventory={"VCPU": {"total": 16, "allocation_ratio": 4.0}})
                for j in range(2)]
        nic = api_provider(api, f"host{i}-nic", parent=root,
                        inventory={"NET_BW_EGR_KILOBIT_PER_SEC": 10_000_000})
        names.update({root: f"host{i}", numa[0]: f"host{i}-numa0", numa[1]: f"host{i}-numa1",
                      nic: f"host{i}-nic"})
        # One consumer spanning the root, a NUMA cell, the NIC and the pool.
        api_allocate(api, {root: {"MEMORY_MB": mem_used // 2}, numa[0]: {"VCPU": cpu0},
                        nic: {"NET_BW_EGR_KILOBIT_PER_SEC": 1_000_000 * (i + 1)},
                        pool: {"DISK_GB": disk // 3}})
        api_allocate(api, {root: {"MEMORY_MB": mem_used - mem_used // 2, "DISK_GB": disk},
                        numa[1]: {"VCPU": cpu1}})
        hosts[root] = numa
    empty = api_provider(api, "empty-host", inventory={"VCPU": 8})
    names[empty] = "empty-host"
    bare = api_provider(api, "no-inventory")
    names[bare] = "no-inventory"
    return {"names": names, "pool": pool, "hosts": hosts}


def _fullness_by_api(api, names, resource_class=""):
    """uuid -> fullness from GET .../inventories and .../usages, None when
    the provider has no inventory (of the class)."""
    out = {}
    for rp in names:
        inventories = api.get(f"/resource_providers/{rp}/inventories", mv=MV).json()["inventories"]
        usages = api.get(f"/resource_providers/{rp}/usages", mv=MV).json()["usages"]
        fracs = []
        for rc, inv in inventories.items():
            if resource_class and rc != resource_class:
                continue
            cap = math.floor((inv["total"] - inv["reserved"]) * inv["allocation_ratio"])
            used = usages.get(rc, 0)
            fracs.append(used / cap if cap > 0 else (1.0 if used else 0.0))
        out[rp] = max(fracs) if fracs else None
    return out


def _expected_order(fullness, names, descending=True):
    have = [rp for rp in names if fullness[rp] is not None]
    have.sort(key=lambda rp: ((-fullness[rp] if descending else fullness[rp]), names[rp]))
    return [names[rp] for rp in have] + sorted(names[rp] for rp in names if fullness[rp] is None)


def _names_across_pages(staff, params):
    seen, page = [], 1
    while True:
        html = staff.get("/console/providers/", {**params, "page": page}).content.decode()
        body = html.split('id="providers"', 1)[1].split("</table>", 1)[0]
        seen += re.findall(r'<tr><td><a href="/console/providers/[^/]+/">([^<]+)</a>', body)
        if f"page={page + 1}" not in html.split('class="pager"', 1)[-1]:
            return seen
        page += 1


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(views, "PAGE_SIZE", 4)


def test_sorted_by_fullest_class_across_pages(staff, api, cloud, small_pages):
    names = cloud["names"]
    fullness = _fullness_by_api(api, names)
    assert _names_across_pages(staff, {"sort": "full"}) == _expected_order(fullness, names)
    assert _names_across_pages(staff, {"sort": "empty"}) == _expected_order(
        fullness, names, descending=False)
    # The fullest in the cloud leads page 1 although its name sorts late:
    # 62 of 64 VCPU, then 60,000 of 63,488 MiB, then 450 of 500 GiB.
    assert _names_across_pages(staff, {"sort": "full"})[:3] == ["host1-numa0", "host2", "host0"]


@pytest.mark.parametrize("resource_class", ["VCPU", "MEMORY_MB", "DISK_GB",
                                            "NET_BW_EGR_KILOBIT_PER_SEC"])
def test_sorted_by_one_class_across_pages(staff, api, cloud, small_pages, resource_class):
    names = cloud["names"]
    fullness = _fullness_by_api(api, names, resource_class)
    assert _names_across_pages(staff, {"sort": "full", "class": resource_class}) == \
        _expected_order(fullness, names)


@pytest.mark.parametrize("threshold,resource_class", [
    (90, ""), (50, ""), (45, "DISK_GB"), (10, "NET_BW_EGR_KILOBIT_PER_SEC"), (0, ""), (100, "")])
def test_fullness_filter_and_full_hosts_agree_with_the_api(
        staff, api, cloud, small_pages, threshold, resource_class):
    names = cloud["names"]
    fullness = _fullness_by_api(api, names, resource_class)
    expected = {names[rp] for rp, f in fullness.items() if f is not None and f >= threshold / 100}
    params = {"full": threshold, "class": resource_class}
    assert set(_names_across_pages(staff, params)) == expected
    # The full-hosts page and its CSV: the same providers, each class over the line.
    resp = staff.get("/console/full/", {"above": threshold, "class": resource_class,
                                        "format": "csv"})
    rows = list(csv.DictReader(io.StringIO(b"".join(resp.streaming_content).decode())))
    assert {r["name"] for r in rows} == expected
    for row in rows:
        used, cap = int(row["used"]), int(row["capacity"])
        assert (used / cap if cap else 1.0) >= threshold / 100
        assert not resource_class or row["resource_class"] == resource_class
    html = staff.get("/console/full/", {"above": threshold, "class": resource_class}).content
    count = f"{len(expected)} provider{'s' if len(expected) != 1 else ''} with"
    assert count in html.decode()


def test_full_hosts_page_names_roots_and_orders_fullest_first(staff, api, cloud):
    html = staff.get("/console/full/", {"above": 80}).content.decode()
    table = html.split('id="full-hosts"', 1)[1].split("</table>", 1)[0]
    # host1-numa0: 62 of 64 VCPU (96.9 %); host2: 60,000 of 63,488 MiB
    # (94.5 %); host0: 450 of 500 GiB (90 %).
    assert re.findall(r'<tr><td><a href="/console/providers/[^/]+/">([^<]+)</a>', table) == [
        "host1-numa0", "host2", "host0"]
    assert "96.9 %" in table and "94.5 %" in table and "90.0 %" in table
    assert ">host1</a>" in table  # the NUMA cell's root, named and linked
    assert "default 90" not in html and 'value="80"' in html


def test_full_hosts_default_threshold_and_disabled_marked(staff, api, cloud):
    host2 = next(rp for rp, n in cloud["names"].items() if n == "host2")
    gen = api.get(f"/resource_providers/{host2}", mv=MV).json()["generation"]
    assert api.put(f"/resource_providers/{host2}/traits", mv=MV, json={
        "resource_provider_generation": gen,
        "traits": ["COMPUTE_STATUS_DISABLED"]}).status_code == 200
    html = staff.get("/console/full/").content.decode()
    assert 'value="90"' in html
    table = html.split('id="full-hosts"', 1)[1].split("</table>", 1)[0]
    assert "host1-numa0" in table and "host2" in table
    assert table.count('class="tag disabled"') == 1


@pytest.mark.parametrize("params,message", [
    ({"full": "lots"}, "Fullness must be a percentage"),
    ({"full": "-5"}, "Fullness must be a percentage"),
    ({"full": "nan"}, "Fullness must be a percentage"),
    ({"class": "CUSTOM_NOPE"}, "No provider has inventory of &#x27;CUSTOM_NOPE&#x27;"),
    ({"sort": "random"}, "Sort must be one of"),
])
def test_bad_fullness_values_are_shown_not_raised(staff, cloud, params, message):
    resp = staff.get("/console/providers/", params)
    assert resp.status_code == 200
    assert message in resp.content.decode()
    page = "/console/full/"
    resp = staff.get(page, {("above" if k == "full" else k): v for k, v in params.items()})
    assert resp.status_code == 200


def test_percent_sign_and_separators_accepted(staff, cloud):
    html = staff.get("/console/full/", {"above": "1,00%"}).content.decode()
    assert "error" not in html.split("<h1>", 1)[1].split("</table>")[0].split('id="full-count"')[0]
    assert 'value="100"' in html


def test_fullness_stays_on_a_bounded_number_of_queries(staff, cloud, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        assert staff.get("/console/providers/", {"sort": "full"}).status_code == 200
    with django_assert_max_num_queries(10):
        assert staff.get("/console/full/", {"above": 10}).status_code == 200
