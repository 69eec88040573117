"""Usage over time, forecast, stranded capacity, audit, drain and scheduling
failures on the awkward cloud (tests/console/figures_cloud.py): each figure
counted again from the API's answers, the command's JSON or the records."""
import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from allocations.models import Consumer
from operations.models import UsageSnapshot
from planning.models import SchedulingFailure
from tests.commands.helpers import run
from tests.console import figures_cloud as fc
from tests.console.figures_html import agrees, by_first, csv_rows, number, table, text_of
from tests.console.figures_reference import Reference

pytestmark = pytest.mark.django_db


@pytest.fixture
def cloud(api):
    return fc.build(api)


@pytest.fixture
def ref(api, cloud):
    return Reference(api)


@pytest.mark.parametrize("aggregate", ["", fc.AGG_A, fc.AGG_B, fc.AGG_C])
def test_usage_snapshot_per_aggregate(staff, ref, aggregate):
    assert run("take_usage_snapshot")[0] == 0
    right = ref.scope(aggregate)
    params = {"aggregate": aggregate} if aggregate else {}
    html = staff.get("/console/usage/", params).content.decode()
    rows = by_first(table(html, "forecast"))
    assert sorted(rows) == sorted(right)
    for rc, (capacity, used) in right.items():
        assert [rows[rc][1].raws[0], rows[rc][2].raws[0]] == [used, capacity], rc
        assert agrees(rows[rc][1].text, rc, used) and agrees(rows[rc][2].text, rc, capacity)
        if capacity:
            assert number(rows[rc][3].text) == round(100 * used / capacity, 1)
        label = re.search(rf'aria-label="{rc}: used ([^"]+) of ([^"]+)"', html)
        assert agrees(label[1], rc, used) and agrees(label[2], rc, capacity), label[0]
    csv = csv_rows(staff.get("/console/usage/", {**params, "format": "csv"}))
    assert {r["resource_class"]: (int(r["capacity"]), int(r["used"])) for r in csv} == right
    assert {r["aggregate_uuid"] for r in csv} == {aggregate}


def test_usage_snapshot_by_hand(staff, cloud):
    run("take_usage_snapshot")
    snap = {(s.aggregate_uuid, s.resource_class): (s.capacity, s.used)
            for s in UsageSnapshot.objects.all()}
    assert snap[("", "VCPU")] == (238, 22)
    # AGG_A: h1 is a member, so its NUMA cells and NIC count with it.
    assert snap[(fc.AGG_A, "VCPU")] == (67, 6)
    # AGG_B: h2-numa0 alone (its root is not a member), h3 and its child.
    assert snap[(fc.AGG_B, "VCPU")] == (128 + 3 + 8, 6 + 4 + 6)
    # AGG_C: idle and h1-numa1 (a member by itself).
    assert snap[(fc.AGG_C, "VCPU")] == (32 + 11, 2)


SYNTHETIC = {
    # class: (capacity, [(days ago, used), ...])
    "VCPU": (200, [(3, 100), (2, 110), (1, 120), (0, 130)]),
    "MEMORY_MB": (1000, [(3, 500), (2, 520), (1, 510), (0, 530)]),
    "DISK_GB": (1000, [(1, 300), (0, 200)]),
    "PCPU": (100, [(1, 80), (0, 90)]),
    "CUSTOM_NIC_VF": (10, [(0, 5)]),
}
# Least squares by hand (x in days, 0 = now):
#   VCPU: slope 10, r2 1, line at now 130: full (200) in 7.0 d, 85 % (170) in 4.0 d
#   MEMORY_MB: mean x -1.5, mean y 515, sxx 5, sxy 40, syy 500: slope 8, at now 527,
#     r2 1600 / 2500 = 0.64; full in (1000 - 527) / 8 = 59.1 d, 85 % in 40.4 d
#   DISK_GB: falling, not growing; PCPU: 90 % is past 85 % already (0), full in 1.0 d
#   CUSTOM_NIC_VF: one snapshot, no line
FORECAST = {
    "VCPU": ("130", "200", "65.0", "10.0", "1.0", "4", "4.0", "7.0"),
    "MEMORY_MB": ("530 MiB", "1,000 MiB", "53.0", "8 MiB", "0.64", "4", "40.4", "59.1"),
    "DISK_GB": ("200 GiB", "1,000 GiB", "20.0", "-100 GiB", "1.0", "2", "not growing",
                "not growing"),
    "PCPU": ("90", "100", "90.0", "10.0", "1.0", "2", "0.0", "1.0"),
    "CUSTOM_NIC_VF": ("5", "10", "50.0", "–", "–", "1", "–", "–"),
}


def test_forecast_rows_from_synthetic_snapshots(staff, api, db):
    agg = "dddddddd-0000-4000-8000-00000000000d"
    now = timezone.now()
    for rc, (capacity, samples) in SYNTHETIC.items():
        for days, used in samples:
            UsageSnapshot.objects.create(taken_at=now - timedelta(days=days), aggregate_uuid=agg,
                                         resource_class=rc, capacity=capacity, used=used)
    html = staff.get("/console/usage/", {"aggregate": agg}).content.decode()
    rows = by_first(table(html, "forecast"))
    assert {rc: tuple(c.text for c in row[1:]) for rc, row in rows.items()} == FORECAST
    answer = api.get(f"/planning/forecast?aggregate={agg}").json()["forecast"]["rows"]
    for row in answer:
        shown = FORECAST[row["resource_class"]]
        assert (str(row["samples"]), row["percent"]) == (shown[5], float(shown[2]))
        for key, i in (("days_to_threshold", 6), ("days_to_capacity", 7)):
            if row[key] is not None:
                assert row[key] == float(shown[i])


def test_stranded_capacity(staff, api, ref):
    """Stranded: free capacity no stored flavor can use in its tree (with
    the pools the tree reaches). By hand, with "big" VCPU:4,MEMORY_MB:8192,
    DISK_GB:20 and "pinned" PCPU:4,MEMORY_MB:4096:
      h1: memory 92160 - 6144 free, VCPU 52 (numa0) and 9 (numa1), PCPU 6
          and 7, disk from pool-a (9800, step 10) and pool-b: both fit.
      h3: VCPU 0 free on h3 (4 held of 3), 2 on h3-numa0 (8 - 6, less than
          4), no PCPU, memory 6144 (< 8192, >= 4096): neither fits. Its
          6144 MiB: "pinned" lacks only PCPU; h3-numa0's 2 VCPU: "big", the
          only flavor asking VCPU, lacks VCPU and memory.
      idle: 32 VCPU, 16384 MiB, pool-b through AGG_C: "big" fits.
      h2 is disabled and left out (the trait on h3-numa0, a child, disables
      nothing); the NIC's VFs and bandwidth no flavor asks for."""
    from tests.factories import FlavorFactory

    FlavorFactory(name="big", resources="VCPU:4,MEMORY_MB:8192,DISK_GB:20")
    FlavorFactory(name="pinned", resources="PCPU:4,MEMORY_MB:4096")
    html = staff.get("/console/usage/").content.decode()
    rows = by_first(table(html, "stranded"))
    assert list(rows) == ["MEMORY_MB", "VCPU"]
    assert rows["MEMORY_MB"][1].raws == [6144] and rows["MEMORY_MB"][2].text == "1"
    assert rows["MEMORY_MB"][3].text.startswith("h3 6 GiB free of 8 GiB, short of PCPU")
    assert rows["VCPU"][1].raws == [2] and rows["VCPU"][2].text == "1"
    assert rows["VCPU"][3].text.startswith("h3-numa0 2 free of 8, short of MEMORY_MB, VCPU")
    stranded = api.get("/planning/forecast").json()["stranded"]
    assert {rc: (e["amount"], e["providers"]) for rc, e in stranded.items()} == {
        "MEMORY_MB": (6144, 1), "VCPU": (2, 1)}


def test_audit_counts_are_the_commands(staff, cloud):
    Consumer.objects.filter(uuid=cloud.consumer["c_mig"]).update(
        created_at=timezone.now() - timedelta(hours=48))
    code, out = run("audit_allocations", "--json")
    report = json.loads(out)
    html = staff.get("/console/audit/").content.decode()
    shown = [int(r[1].text) for r in table(html, "audit-summary")]
    assert shown == [len(rows) for rows in report["findings"].values()]
    # By hand: c_empty; none; h3 VCPU 4 > 3; h3's PCPU and CUSTOM_LEGACY;
    # c_mig (h1 and h3; the pools do not count as trees); c_mig again (48 h
    # old); h2 with 2 consumers (a trait on h3-numa0, a child, disables
    # nothing); none.
    assert shown == [1, 0, 1, 2, 1, 1, 1, 0]
    assert report["findings"]["disabled_providers_with_consumers"] == [
        {"provider": cloud.rp["h2"], "name": "h2", "consumers": 2}]
    assert [r[1].text for r in table(html, "finding-disabled_providers_with_consumers",
                                     header=False)] == ["2 consumer(s)"]


@pytest.mark.parametrize("what", [
    {"provider": ["h1"]}, {"tree": ["h3-numa0"]}, {"aggregate": [fc.AGG_B]},
    {"provider": ["pool-b"]}, {"provider": ["h1-numa1", "idle"]},
])
def test_drain_page_is_the_api_answer(staff, api, ref, cloud, what):
    params = {k: [cloud.rp.get(v, v) for v in vs] for k, vs in what.items()}
    query = "&".join(f"{k}={v}" for k, vs in params.items() for v in vs)
    answer = api.get(f"/planning/drain?{query}").json()
    html = staff.get("/console/drain/", params).content.decode()
    verdict = text_of(html, "verdict")
    n, not_placed = answer["consumers"], len(answer["not_placed"])
    assert f" {n} consumer" in verdict
    if answer["fits"]:
        assert verdict.startswith("Fits")
    else:
        assert verdict.startswith(f"Does not fit: {not_placed} of {n}")
    assert f"{len(answer['drained'])} provider" in verdict
    assert f"{answer['targets']} target tree" in verdict
    # The consumers to move, counted from the API: those holding anything drained.
    drained = {d["uuid"] for d in answer["drained"]}
    assert n == len(set().union(*(ref.consumers(u) for u in drained)))
    def short(cell):  # a consumer by its uuid's start (and kind)
        return re.search(r"\b([0-9a-f]{8})\b", cell.text).group(1)

    placed = [r for r in table(html, "placed") if r[0].text != "nothing placed"]
    assert [short(r[0]) for r in placed] == [m["consumer"][:8] for m in answer["placed"]]
    for row, move in zip(placed, answer["placed"]):
        assert row[1].raws == [n for e in move["holds"] for n in e["resources"].values()]
        assert row[2].raws == [n for e in move["to"] for n in e["resources"].values()]
    if not_placed:
        rows = table(html, "not-placed")
        assert [short(r[0]) for r in rows] == [m["consumer"][:8] for m in answer["not_placed"]]
    rows = table(html, "fullest-after")
    assert [(r[0].text, r[1].text, *[c.raws[0] for c in r[2:5]], number(r[5].text))
            for r in rows] == [
        (f["name"], f["resource_class"], f["used_before"], f["used"], f["capacity"], f["percent"])
        for f in answer["fullest_after"]]
    for f in answer["fullest_after"]:
        assert f["used_before"] == ref.used(f["uuid"], f["resource_class"])
        assert f["capacity"] == ref.capacity(f["uuid"], f["resource_class"])


def _failure(hours_ago, kind, reason, gid=""):
    return SchedulingFailure.objects.create(
        created_at=timezone.now() - timedelta(hours=hours_ago), kind=kind, reason=reason,
        global_request_id=gid)


@pytest.mark.parametrize("hours", [24, 50, 72])
def test_failures_by_reason_are_the_records(staff, db, hours):
    for ago, kind, reason in [(0.5, "candidates", "capacity"), (1.5, "candidates", "capacity"),
                              (30, "candidates", "capacity"), (49, "claim", "capacity"),
                              (60, "candidates", "required"), (100, "claim", "no_inventory"),
                              (2, "claim", "unit_constraints")]:
        _failure(ago, kind, reason)
    html = staff.get("/console/failures/", {"hours": hours}).content.decode()
    rows = table(html, "by-reason")
    since = timezone.now() - timedelta(hours=hours)
    records = SchedulingFailure.objects.filter(created_at__gte=since)
    right = {}
    for f in records:
        right[(f.kind, f.reason)] = right.get((f.kind, f.reason), 0) + 1
    assert {(r[0].text, r[1].text): int(r[2].text) for r in rows} == right
    # Each reason's trend bars add up to its count.
    trends = re.findall(r'<svg class="trend" role="img" aria-label="([\d ]+)"', html)
    assert [sum(map(int, t.split())) for t in trends] == [int(r[2].text) for r in rows]
    if hours == 24:  # 0.5 and 1.5 hours ago: the last two hourly bars
        assert trends[0].split()[-2:] == ["1", "1"] and len(trends[0].split()) == 24
    assert len(table(html, "failures")) == len(records)  # the newest, all of them here
    heading = text_of(html, "by-reason-title")
    assert heading.startswith(f"By reason {sum(right.values())} since ")
    shown_since = heading.split(" since ")[1][:16]
    assert shown_since == since.strftime("%Y-%m-%d %H:%M")


def _after(api, cloud, name):
    answer = api.get(f"/planning/drain?provider={cloud.rp[name]}&fullest=100").json()
    return answer, {(f["name"], f["resource_class"]): (f["used_before"], f["used"], f["capacity"])
                    for f in answer["fullest_after"]}


def test_drain_after_keeps_what_the_unplaced_still_hold(api, cloud):
    """Draining h1: neither c_span (its NIC has no twin) nor c_mig finds a
    place, so c_mig still holds its 2 VCPU and 2048 MiB on h3 afterwards: h3
    stays at 4 of 3 VCPU and 2048 of 8192 MiB."""
    answer, after = _after(api, cloud, "h1")
    assert not answer["fits"] and len(answer["not_placed"]) == 2
    assert after[("h3", "VCPU")] == (4, 4, 3)
    assert after[("h3", "MEMORY_MB")] == (2048, 2048, 8192)
    assert answer["fullest_after"][0]["name"] == "h3"


def test_drain_child_with_the_disabled_trait_is_a_provider_like_any_other(api, cloud):
    """h3-numa0 carries the trait, but its root h3 does not: it is in the
    fullest after a drain, at 6 of 8."""
    answer, after = _after(api, cloud, "h1")
    assert after[("h3-numa0", "VCPU")] == (6, 6, 8)
    assert [f["name"] for f in answer["fullest_after"]][:2] == ["h3", "h3-numa0"]


def test_failures_looked_up_by_request_id_are_counted_since_the_oldest(staff, db):
    """A global request id finds its records whatever their age: the count
    is of those, and the heading dates it from the oldest of them."""
    gid = "req-11111111-2222-4333-8444-555555555555"
    old = _failure(100, "candidates", "capacity", gid)
    _failure(1, "candidates", "capacity", gid)
    _failure(2, "claim", "capacity")
    html = staff.get("/console/failures/", {"global_request_id": gid}).content.decode()
    assert {(r[0].text, r[1].text): int(r[2].text) for r in table(html, "by-reason")} == {
        ("candidates", "capacity"): 2}
    heading = text_of(html, "by-reason-title")
    assert heading.startswith("By reason 2 since ")
    assert heading.split(" since ")[1][:16] == old.created_at.strftime("%Y-%m-%d %H:%M")
