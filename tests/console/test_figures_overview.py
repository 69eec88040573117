"""The overview's figures on an awkward cloud (tests/console/figures_cloud.py),
each counted a second way: by hand from the cloud's definition, and from
the Placement API's own answers (figures_reference)."""
import re

import pytest

from placement_core.querystring import parse_flavors
from tests.console import figures_cloud as fc
from tests.console.figures_html import agrees, by_first, csv_rows, number, table, text_of
from tests.console.figures_reference import Reference

pytestmark = pytest.mark.django_db

FLAVORS = ("small=VCPU:1,MEMORY_MB:512,DISK_GB:10; nic=VCPU:2,MEMORY_MB:1024,CUSTOM_NIC_VF:1; "
           "mem=MEMORY_MB:2000")

# By hand from the cloud's definition: total, reserved, capacity (floored per
# inventory), used (every allocation of the class), free (per inventory,
# never below zero, disabled tree h2 left out).
BY_HAND = {
    # VCPU: 56 + 11 (11.25) + 128 + 3 + 8 (8.75) + 32; free 52 + 9 + 0 (h3 is over) + 2 + 32
    "VCPU": (79, 2, 238, 22, 95),
    # 92160 + 32256 + 8192 + 16384; free 86016 + 6144 + 16384
    "MEMORY_MB": (122880, 4608, 148992, 11264, 108544),
    # PCPU: 8 + 7; used 2 + the 1 h3 holds without inventory, which takes no one's capacity
    "PCPU": (16, 1, 15, 3, 13),
    "DISK_GB": (15000, 100, 16150, 650, 15500),
    "CUSTOM_NIC_VF": (8, 1, 7, 1, 6),
    fc.BW: (10_000_000, 1_000_000, 9_000_000, 100_000, 8_900_000),
    # Allocated without any inventory: nothing to offer, nothing free.
    "CUSTOM_LEGACY": (0, 0, 0, 3, 0),
}


@pytest.fixture
def cloud(api, settings):
    settings.PLACEMENT_FLAVORS = parse_flavors(FLAVORS)
    return fc.build(api)


@pytest.fixture
def ref(api, cloud):
    return Reference(api)


def test_the_reference_agrees_with_the_hand_count(ref):
    for rc, (total, reserved, capacity, used, free) in BY_HAND.items():
        t = ref.class_total(rc)
        assert (t["total"], t["reserved"], t["capacity"], t["used"], t["free"]) == (
            total, reserved, capacity, used, free), rc


def _totals_row(staff, rc):
    return by_first(table(staff.get("/console/").content.decode(), "totals"))[rc]


def test_class_capacity_is_the_sum_of_each_inventorys(staff, cloud):
    """VCPU: 56 + 11 + 128 + 3 + 8 + 32 = 238 (h1-numa1 offers 11 of its
    11.25, h3-numa0 8 of its 8.75), as the usage snapshot counts it."""
    assert _totals_row(staff, "VCPU")[4].text == "238"


def test_free_is_what_the_inventories_still_offer(staff, cloud):
    """PCPU: 6 on h1-numa0 and 7 on h1-numa1; the PCPU h3 holds without
    inventory takes nobody's. VCPU: h3, over by one, offers nothing (not
    minus one). CUSTOM_LEGACY, with no inventory at all, offers nothing."""
    assert _totals_row(staff, "PCPU")[6].text == "13"
    assert _totals_row(staff, "VCPU")[6].text == "95"
    assert _totals_row(staff, "CUSTOM_LEGACY")[6].text == "0"


def test_capacity_by_class_table(staff, ref):
    rows = by_first(table(staff.get("/console/").content.decode(), "totals"))
    assert set(rows) == set(BY_HAND)
    for rc, row in rows.items():
        t = ref.class_total(rc)
        right = [t["total"], t["reserved"], t["capacity"], t["used"], t["free"]]
        cells = [row[1], row[2], row[4], row[5], row[6]]
        # The raw amounts (hover) exactly, the text to the precision it shows.
        assert [c.raws[0] for c in cells] == right, rc
        for cell, value in zip(cells, right):
            assert agrees(cell.text, rc, value), (rc, cell.text, value)
        ratios = t["ratios"]
        shown = row[3].text
        if not ratios:
            assert shown == "—", rc  # no inventory: no ratio to show
        elif len(ratios) == 1:
            assert number(shown) == ratios[0], rc
        else:
            low, high = shown.split("–")
            assert (number(low), number(high)) == (ratios[0], ratios[-1]), rc
        percent = round(100 * t["used"] / t["capacity"], 1) if t["capacity"] else 100.0
        assert number(row[7].text) == percent, rc


def test_capacity_by_class_csv(staff, ref):
    rows = csv_rows(staff.get("/console/", {"table": "totals", "format": "csv"}))
    assert {r["resource_class"] for r in rows} == set(BY_HAND)
    for r in rows:
        t = ref.class_total(r["resource_class"])
        assert [int(r[k]) for k in ("total", "reserved", "capacity", "used", "free")] == [
            t["total"], t["reserved"], t["capacity"], t["used"], t["free"]], r
        if t["ratios"]:
            assert (float(r["allocation_ratio_min"]), float(r["allocation_ratio_max"])) == (
                t["ratios"][0], t["ratios"][-1])
        else:
            assert r["allocation_ratio_min"] == r["allocation_ratio_max"] == ""


def test_counts_and_disabled_note(staff, api, ref):
    html = staff.get("/console/").content.decode()
    consumers = {c for p in ref.rp.values() for c in p["allocations"]}
    assert len(consumers) == 7  # and c_empty, which holds nothing
    allocations = sum(len(a["resources"]) for p in ref.rp.values()
                      for a in p["allocations"].values())
    classes = api.get("/resource_classes", mv=fc.MV).json()["resource_classes"]
    text = text_of(html, "counts")
    assert text == (
        f"{len(ref.rp)} providers ({sum(1 for p in ref.rp.values() if p['parent'] is None)} roots) "
        f"{len(consumers) + 1} consumers {allocations} allocations "
        f"{len({a for p in ref.rp.values() for a in p['aggregates']})} aggregates "
        f"{sum(1 for c in classes if c['name'].startswith('CUSTOM_'))} custom resource classes")
    assert text == "12 providers (7 roots) 8 consumers 20 allocations 3 aggregates " \
                   "2 custom resource classes"
    disabled_roots = [u for u, p in ref.rp.items() if p["parent"] is None and ref.disabled(u)]
    assert len(disabled_roots) == 1
    assert "1 disabled host now" in text_of(html, "disabled-note")


def test_fullest_providers(staff, ref):
    html = staff.get("/console/").content.decode()
    rows = table(html, "fullest")
    # Every provider holding something of a class it has inventory of, by its fullest such class.
    right = []
    for u, p in ref.rp.items():
        held = [(ref.fraction(u, rc), rc) for rc in p["inventories"] if ref.used(u, rc)]
        if held:
            frac, rc = max(held)
            right.append((-frac, p["name"], rc))
    right.sort()
    assert [r[0].text for r in rows] == [name for _, name, _ in right[:10]]
    assert [r[0].text for r in rows][:3] == ["h3", "h3-numa0", "h1-numa0"]
    for row in rows:
        u = ref.u(row[0].text)
        rc = row[1].text
        assert row[2].raws == [ref.used(u, rc), ref.capacity(u, rc)]
        assert number(row[3].text) == round(100 * ref.fraction(u, rc), 1)
    csv = csv_rows(staff.get("/console/", {"table": "fullest", "format": "csv"}))
    assert [(r["name"], r["resource_class"], int(r["used"]), int(r["capacity"]),
             float(r["percent"])) for r in csv] == [
        (r[0].text, r[1].text, *r[2].raws, number(r[3].text)) for r in rows]


# Headroom by hand (trees by root name; disabled h2 and the pools are no tree):
#   small = VCPU:1, MEMORY_MB:512, DISK_GB:10
#     h1: VCPU 52 + 9 = 61, MEMORY 86016 // 512 = 168, DISK pool-a 9800 // 10 = 980 -> 61
#     h3: VCPU 0 (over) + 2 = 2, MEMORY 6144 // 512 = 12, DISK pool-b 5700 // 10 -> 2
#     idle: VCPU 32, MEMORY 32, DISK pool-b (via AGG_C) -> 32;            cloud 95
#     AGG_A: h1 (root member) 61; AGG_B: h3 (h2-numa0 is disabled) 2;
#     AGG_C: idle 32 (h1-numa1 alone is a member, without memory: 0) -> 32
#   nic = VCPU:2, MEMORY_MB:1024, CUSTOM_NIC_VF:1: only h1 has VFs: 6 free -> 6
#   mem = MEMORY_MB:2000: not a multiple of h1's step 256; h3 6144 // 2000 = 3, idle 8 -> 11
HEADROOM = {
    "small": (95, {fc.AGG_A: 61, fc.AGG_B: 2, fc.AGG_C: 32}),
    "nic": (6, {fc.AGG_A: 6, fc.AGG_B: 0, fc.AGG_C: 0}),
    "mem": (11, {fc.AGG_A: 0, fc.AGG_B: 3, fc.AGG_C: 8}),
}


def test_headroom_by_hand(staff, cloud):
    html = staff.get("/console/").content.decode()
    rows = by_first(table(html, "headroom"))
    csv = csv_rows(staff.get("/console/", {"table": "headroom", "format": "csv"}))
    for flavor, (cloud_n, per_agg) in HEADROOM.items():
        assert number(rows[flavor][2].text) == cloud_n, flavor
        got = {r["aggregate"]: int(r["instances"]) for r in csv if r["flavor"] == flavor}
        assert got == {"": cloud_n, **per_agg}, flavor
        # The page's tags, in the CSV's order, end in the same counts.
        tags = rows[flavor][3].text
        for n in per_agg.values():
            assert f" {n}" in tags


def _fill(api, resources, member_of=None):
    """Claim the flavor through the API until no candidate is left; the
    number of claims is the headroom counted another way."""
    query = f"/allocation_candidates?resources={resources}&root_required=!{fc.DISABLED}&limit=1"
    if member_of:
        query += f"&member_of={member_of}"
    n = 0
    while True:
        answer = api.get(query, mv=fc.MV).json()
        if not answer["allocation_requests"]:
            return n
        n += 1
        assert n < 500
        import uuid
        response = api.put(f"/allocations/{uuid.uuid4()}", mv=fc.MV, json={
            **answer["allocation_requests"][0], "project_id": "fill", "user_id": "fill",
            "consumer_generation": None, "consumer_type": "INSTANCE"})
        assert response.status_code == 204, response.content


@pytest.mark.parametrize("flavor", sorted(HEADROOM))
@pytest.mark.parametrize("aggregate", ["", fc.AGG_A, fc.AGG_B, fc.AGG_C])
def test_headroom_is_what_the_api_lets_one_claim(api, cloud, flavor, aggregate):
    resources = dict(f.split("=", 1) for f in FLAVORS.replace(" ", "").split(";"))[flavor]
    cloud_n, per_agg = HEADROOM[flavor]
    assert _fill(api, resources, aggregate or None) == (per_agg[aggregate] if aggregate
                                                        else cloud_n)


def test_capacity_bars_of_the_class_totals(staff, ref):
    """A bar's whole length is what the inventories offer before the
    reserved part is taken off (each total times its own ratio); used and
    reserved (times its ratio) are drawn to that scale."""
    html = staff.get("/console/").content.decode()
    body = html.split('id="totals"')[1].split("</table>")[0]
    for rc in BY_HAND:
        row = body.split(f"<td>{rc}</td>")[1].split("</tr>")[0]
        used_w = float(re.search(r'class="bar-used[^"]*" x="0" y="0" width="([\d.]+)"', row)[1])
        reserved_w = float(re.search(r'class="bar-reserved" x="[\d.]+" y="0" width="([\d.]+)"',
                                     row)[1])
        invs = [p["inventories"][rc] for p in ref.rp.values() if rc in p["inventories"]]
        full = sum(i["total"] * i["allocation_ratio"] for i in invs)
        reserved = sum(i["reserved"] * i["allocation_ratio"] for i in invs)
        used = ref.class_total(rc)["used"]
        if full:
            assert used_w == pytest.approx(min(100, 100 * used / full), abs=0.01), rc
            assert reserved_w == pytest.approx(
                min(100 - used_w, 100 * reserved / full), abs=0.01), rc
        ratios = ref.class_total(rc)["ratios"]
        title = re.search(r"<title>([^<]+)</title>", row)[1]
        if len(ratios) > 1:
            assert f"ratio {ratios[0]:g}–{ratios[-1]:g}" in title, title


def test_aggregates_counted_are_those_with_members(staff, api, cloud):
    """An aggregate every provider has left is no aggregate the API can
    show (aggregates exist only as memberships): bare joins a fourth and
    leaves it, and the overview still counts the 3 with members."""
    agg_d = "dddddddd-0000-4000-8000-00000000000d"
    base = f"/resource_providers/{cloud.rp['bare']}/aggregates"
    for aggregates in ([agg_d], []):
        generation = api.get(base, mv=fc.MV).json()["resource_provider_generation"]
        assert api.put(base, mv=fc.MV, json={
            "aggregates": aggregates, "resource_provider_generation": generation}
        ).status_code == 200
    ref = Reference(api)
    assert len({a for p in ref.rp.values() for a in p["aggregates"]}) == 3
    assert "3 aggregates" in text_of(staff.get("/console/").content.decode(), "counts")
