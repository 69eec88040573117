"""Scheduling failures: captured on empty candidate answers and capacity
refusals only, explained, bounded, counted, and read back (API, command,
console)."""
import json
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from planning import failures
from planning.models import SchedulingFailure
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db

GLOBAL = "req-11111111-2222-4333-8444-555555555555"
HEADERS = {"HTTP_X_AUTH_TOKEN": "nova:service-project", "HTTP_X_ROLES": "service",
           "HTTP_OPENSTACK_API_VERSION": "placement 1.39",
           "HTTP_X_OPENSTACK_REQUEST_ID": GLOBAL}


@pytest.fixture
def cloud(world):
    failures.explanations.reset()
    rp = world.provider("cn1", inventory={"VCPU": {"total": 8, "max_unit": 4},
                                          "MEMORY_MB": {"total": 4096, "reserved": 2048}})
    return rp


@pytest.fixture
def client():
    return Client()


def _metric(client, kind, reason):
    body = client.get("/metrics", HTTP_X_AUTH_TOKEN="admin").content.decode()
    line = f'placement_scheduling_failures_total{{kind="{kind}",reason="{reason}"}} '
    found = [ln for ln in body.splitlines() if ln.startswith(line)]
    return float(found[0].split()[-1]) if found else 0.0


def test_candidates_found_records_nothing(cloud, client):
    r = client.get("/allocation_candidates?resources=VCPU:2", **HEADERS)
    assert r.status_code == 200 and json.loads(r.content)["allocation_requests"]
    assert SchedulingFailure.objects.count() == 0


def test_no_candidates_is_recorded_with_its_explanation(cloud, client):
    before = _metric(client, "candidates", "max_unit")
    r = client.get("/allocation_candidates?resources=VCPU:6,MEMORY_MB:512", **HEADERS)
    assert r.status_code == 200 and json.loads(r.content)["allocation_requests"] == []
    (f,) = SchedulingFailure.objects.all()
    assert f.kind == "candidates" and f.reason == "max_unit"
    assert f.query == "resources=VCPU:6,MEMORY_MB:512" and not f.query_truncated
    assert f.microversion == "1.39"
    assert (f.project_id, f.user_id) == ("service-project", "nova")
    assert f.global_request_id == GLOBAL and f.request_id == r["openstack-request-id"]
    assert f.explanation["candidates"] == 0
    step = f.explanation["groups"][0]["steps"][-1]
    assert step["kind"] == "max_unit" and step["removed"][0]["name"] == "cn1"
    assert "closest: cn1" in f.summary
    assert _metric(client, "candidates", "max_unit") == before + 1


@pytest.mark.parametrize("query, reason", [
    ("resources=VCPU:4,MEMORY_MB:3000", "capacity"),
    ("resources=VCPU:1&required=HW_CPU_X86_AVX2", "required"),
    ("resources=VCPU:1,DISK_GB:10", "resource_class_missing"),
    ("resources1=VCPU:2&resources2=VCPU:2&group_policy=isolate", "group_policy"),
])
def test_reason_is_the_constraint_that_emptied_the_search(cloud, client, query, reason):
    assert client.get(f"/allocation_candidates?{query}", **HEADERS).status_code == 200
    assert SchedulingFailure.objects.get().reason == reason


def test_a_bad_query_is_a_400_not_a_failure(cloud, client):
    r = client.get("/allocation_candidates?resources=VCPU:x", **HEADERS)
    assert r.status_code == 400 and SchedulingFailure.objects.count() == 0


def test_explanations_are_rate_limited_and_the_query_cut(cloud, client, settings):
    settings.PLACEMENT_FAILURE_EXPLAIN_PER_MINUTE = 2
    settings.PLACEMENT_FAILURE_QUERY_MAX_CHARS = 64
    long_query = "resources=VCPU:6&required=" + ",".join(["HW_CPU_X86_AVX2"] * 10)
    for _ in range(3):
        client.get(f"/allocation_candidates?{long_query}", **HEADERS)
    records = list(SchedulingFailure.objects.order_by("id"))
    assert [r.explanation is not None for r in records] == [True, True, False]
    assert records[2].reason == "not_explained"
    assert all(len(r.query) == 64 and r.query_truncated for r in records)
    assert records[0].query == long_query[:64]


def test_rate_limit_window_slides():
    limit = failures._RateLimit(lambda: 2)
    assert [limit.allow(now=t) for t in (0, 1, 2, 59.9, 60.0, 61.5)] == [
        True, True, False, False, True, True]
    assert not failures._RateLimit(lambda: 0).allow()


def test_explanations_take_at_most_a_tenth_of_the_process(cloud, client, monkeypatch):
    # At 100,000 providers one explanation searches for seconds; ten a minute
    # would keep a worker busy most of the time in a full cloud, where every
    # answer is empty. The clock moves 5 s inside each explanation.
    clock = {"now": 1000.0}
    monkeypatch.setattr(failures.time, "monotonic", lambda: clock["now"])
    real_explain = failures.explain.explain

    def slow_explain(*args, **kwargs):
        clock["now"] += 5.0
        return real_explain(*args, **kwargs)

    monkeypatch.setattr(failures.explain, "explain", slow_explain)
    for step in (0, 1, 1, 40):  # seconds that pass before each empty answer
        clock["now"] += step
        client.get("/allocation_candidates?resources=VCPU:6", **HEADERS)
    records = list(SchedulingFailure.objects.order_by("id"))
    # A minute's tenth (6 s) of credit: the first two are explained (credit
    # 6 -> 1 -> -3.4 with 0.1 s back a second), the third finds it spent
    # (-3.3), the fourth 40 s later finds it back (0.7).
    assert [r.reason for r in records] == ["max_unit", "max_unit", "not_explained",
                                           "max_unit"]


def test_rate_limit_credit_of_time():
    limit = failures._RateLimit(lambda: 10)
    assert limit.allow(now=0)
    limit.spent(8.0, now=8.0)  # 6 s of credit, 8 spent: back above 0 after 20 s
    assert [limit.allow(now=t) for t in (8.0, 27.9, 28.1)] == [False, False, True]
    limit.spent(0.05, now=28.15)  # short ones go on being granted
    assert limit.allow(now=40.0) and limit.allow(now=40.1)


def test_capture_off(cloud, client, settings):
    settings.PLACEMENT_FAILURE_CAPTURE = False
    client.get("/allocation_candidates?resources=VCPU:6", **HEADERS)
    assert SchedulingFailure.objects.count() == 0


def test_capture_error_never_changes_the_answer(cloud, client, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("explain broke")

    monkeypatch.setattr(failures.explain, "explain", broken)
    r = client.get("/allocation_candidates?resources=VCPU:6", **HEADERS)
    assert r.status_code == 200 and json.loads(r.content)["allocation_requests"] == []


def _claim(client, rp, amounts, consumer=None, generation=None):
    body = {"allocations": {rp.uuid: {"resources": amounts}}, "project_id": "p",
            "user_id": "u", "consumer_generation": generation, "consumer_type": "INSTANCE"}
    return client.put(f"/allocations/{consumer or uuid.uuid4()}", json.dumps(body),
                      content_type="application/json", **HEADERS)


def test_claim_refused_for_capacity_is_recorded(cloud, client):
    assert _claim(client, cloud, {"VCPU": 4}).status_code == 204
    assert _claim(client, cloud, {"VCPU": 4}).status_code == 204
    r = _claim(client, cloud, {"VCPU": 1})
    assert r.status_code == 409 and json.loads(r.content)["errors"][0]["code"] == \
        "placement.undefined_code"
    r = _claim(client, cloud, {"VCPU": 5})
    assert r.status_code == 409
    r = _claim(client, cloud, {"DISK_GB": 5})
    assert r.status_code == 409
    got = [(f.kind, f.reason, f.explanation) for f in SchedulingFailure.objects.order_by("id")]
    assert got == [
        ("claim", "capacity", {"reason": "capacity", "provider": cloud.uuid,
                               "resource_class": "VCPU", "requested": 1, "used": 8,
                               "capacity": 8}),
        ("claim", "unit_constraints", {"reason": "unit_constraints", "provider": cloud.uuid,
                                       "resource_class": "VCPU", "requested": 5, "used": 8,
                                       "capacity": 8, "min_unit": 1, "max_unit": 4,
                                       "step_size": 1}),
        ("claim", "no_inventory", {"reason": "no_inventory", "provider": cloud.uuid,
                                   "resource_class": "DISK_GB", "requested": 5, "used": None,
                                   "capacity": None}),
    ]
    first = SchedulingFailure.objects.order_by("id").first()
    assert first.query.startswith("PUT /allocations/") and '"VCPU": 1' in first.query
    assert first.global_request_id == GLOBAL
    # The provider by name, as everywhere an operator reads it.
    # The explanations' words: what the provider had free.
    assert first.summary == "cn1: asked 1 VCPU > free 0 (capacity 8, used 8)"
    staff = Client()
    staff.force_login(get_user_model().objects.create_user("op2", password="pw", is_staff=True))
    page = staff.get(f"/console/failures/{first.pk}/").content.decode()
    verdict = page.split('id="verdict"', 1)[1].split("</p>", 1)[0]
    assert f'<a href="/console/providers/{cloud.uuid}/" title="{cloud.uuid}">cn1</a>' in verdict
    assert 'class="crumbs"' in page and "Failures</a> › " in page
    listing = staff.get("/console/failures/").content.decode()
    assert 'cn1: asked <span class="amount" title="1 VCPU"' in listing and "› Failures" in listing


def test_generation_conflict_is_not_a_capacity_failure(cloud, client):
    consumer = uuid.uuid4()
    assert _claim(client, cloud, {"VCPU": 1}, consumer).status_code == 204
    r = _claim(client, cloud, {"VCPU": 2}, consumer, generation=None)
    assert r.status_code == 409
    assert json.loads(r.content)["errors"][0]["code"] == "placement.concurrent_update"
    assert SchedulingFailure.objects.count() == 0


def test_post_allocations_refusal_is_recorded(cloud, client):
    body = {str(uuid.uuid4()): {"allocations": {cloud.uuid: {"resources": {"VCPU": 4}}},
                                "project_id": "p", "user_id": "u", "consumer_generation": None,
                                "consumer_type": "INSTANCE"} for _ in range(3)}
    r = client.post("/allocations", json.dumps(body), content_type="application/json",
                    **HEADERS)
    assert r.status_code == 409
    (f,) = SchedulingFailure.objects.all()
    assert f.kind == "claim" and f.reason == "capacity" and f.query.startswith("POST /allocations")


def test_prune_by_age_and_count(settings):
    now = timezone.now()
    SchedulingFailure.objects.bulk_create([
        SchedulingFailure(created_at=now - timezone.timedelta(days=d), kind="candidates",
                          reason="capacity") for d in (0, 1, 2, 20, 30)])
    settings.PLACEMENT_FAILURE_RETENTION_DAYS = 14
    settings.PLACEMENT_FAILURE_MAX_RECORDS = 2
    assert failures.prune(now=now, dry_run=True) == 3
    assert SchedulingFailure.objects.count() == 5
    assert failures.prune(now=now) == 3
    assert SchedulingFailure.objects.count() == 2
    assert sorted((now - f.created_at).days for f in SchedulingFailure.objects.all()) == [0, 1]


def test_api_groups_trend_and_lookup(cloud, client):
    other = {**HEADERS, "HTTP_X_OPENSTACK_REQUEST_ID": "req-99999999-2222-4333-8444-555555555555"}
    client.get("/allocation_candidates?resources=VCPU:6", **HEADERS)
    client.get("/allocation_candidates?resources=VCPU:6", **other)
    client.get("/allocation_candidates?resources=VCPU:1&required=HW_CPU_X86_AVX2", **other)
    assert client.get("/planning/failures").status_code == 401
    assert client.get("/planning/failures", **HEADERS).status_code == 403  # service role
    body = json.loads(client.get("/planning/failures", HTTP_X_AUTH_TOKEN="admin").content)
    assert body["total"] == 3 and body["bucket_hours"] == 1 and len(
        body["by_reason"][0]["trend"]) == 24
    assert [(g["reason"], g["count"], g["trend"][-1]) for g in body["by_reason"]] == [
        ("max_unit", 2, 2), ("required", 1, 1)]
    body = json.loads(client.get(f"/planning/failures?global_request_id={GLOBAL}",
                                 HTTP_X_AUTH_TOKEN="admin").content)
    assert [f["global_request_id"] for f in body["failures"]] == [GLOBAL]
    assert body["failures"][0]["explanation"]["candidates"] == 0
    body = json.loads(client.get("/planning/failures?reason=required&hours=720",
                                 HTTP_X_AUTH_TOKEN="admin").content)
    assert body["total"] == 1 and body["bucket_hours"] == 24 and len(
        body["by_reason"][0]["trend"]) == 30


@pytest.mark.parametrize("query", ["?hours=0", "?limit=x", "?hours=%C2%B2", "?reason=bogus", "?kind=x", "?x=1",
                                   "?limit=", "?hours=",
                                   "?global_request_id=" + "r" * 65])
def test_api_bad_query(client, query):
    r = client.get(f"/planning/failures{query}", HTTP_X_AUTH_TOKEN="admin")
    assert r.status_code == 400 and json.loads(r.content)["errors"][0]["detail"]


def test_command(cloud, client):
    code, out = run("scheduling_failures")
    assert code == 0 and "scheduling failures: 0" in out
    client.get("/allocation_candidates?resources=VCPU:6", **HEADERS)
    code, out = run("scheduling_failures", "--global-request-id", GLOBAL)
    assert code == 1
    assert GLOBAL in out.splitlines()[0] and "resources=VCPU:6" in out
    header, row = out.splitlines()[1:3]
    assert header.split()[:4] == ["kind", "reason", "count", "last"]
    assert row.split()[:3] == ["candidates", "max_unit", "1"]
    code, out = run("scheduling_failures", "--json", "--prune")
    body = json.loads(out)
    assert code == 1 and body["failures"][0]["reason"] == "max_unit" and body["pruned"] == 0
    SchedulingFailure.objects.update(created_at=timezone.now() - timezone.timedelta(days=30))
    code, out = run("scheduling_failures", "--prune", "--dry-run")
    assert "would prune 1 record(s)" in out and SchedulingFailure.objects.count() == 1
    code, out = run("scheduling_failures", "--prune")
    assert "pruned 1 record(s)" in out and SchedulingFailure.objects.count() == 0
    code, out = run("scheduling_failures", "--reason", "nope")
    assert code == 2 and "--reason must be one of" in out


def test_console_pages(cloud, client):
    client.get("/allocation_candidates?resources=VCPU:6", **HEADERS)
    staff = Client()
    staff.force_login(get_user_model().objects.create_user("op", password="pw", is_staff=True))
    page = staff.get("/console/failures/").content.decode()
    assert 'id="by-reason"' in page and "max_unit" in page and '<svg class="trend"' in page
    page = staff.get(f"/console/failures/?global_request_id={GLOBAL}").content.decode()
    assert GLOBAL in page and "resources=VCPU:6" in page
    page = staff.get("/console/failures/?global_request_id=req-nothing").content.decode()
    assert "No scheduling failure recorded for req-nothing" in page
    page = staff.get("/console/failures/?hours=abc").content.decode()
    assert "hours must be a whole number" in page
    # The form's blank fields mean "not given" there, unlike the API.
    page = staff.get("/console/failures/?hours=&limit=&reason=&global_request_id=")
    assert page.status_code == 200 and "max_unit" in page.content.decode()
    pk = SchedulingFailure.objects.get().pk
    page = staff.get(f"/console/failures/{pk}/").content.decode()
    assert "closest: cn1" in page and "max_unit" in page
    # The stored reasons' amounts in their unit, as on the explain page.
    assert ('cn1: asked <span class="amount" title="6 VCPU" data-sort="6">6</span> VCPU &gt; '
            'max_unit <span class="amount" title="4 VCPU" data-sort="4">4</span>') in page
    _claim(client, cloud, {"MEMORY_MB": 3000})
    pk = SchedulingFailure.objects.filter(kind="claim").get().pk
    page = staff.get(f"/console/failures/{pk}/").content.decode()
    assert 'asked <span class="amount" title="3,000 MEMORY_MB" data-sort="3000">2.9 GiB</span>' \
        in page and "capacity <span" in page
    assert staff.get("/console/failures/999999/").status_code == 404
