"""Concurrent claims never over-commit a provider (PostgreSQL, real connections).

Every test prints its figures (attempted / succeeded / refused / usage vs
capacity); run with ``-s`` to see them.
"""
import json
import threading
import time
import uuid
from collections import Counter

import pytest
from django.db import connections

from allocations import services
from allocations.models import Allocation, Consumer
from placement_core import errors
from tests.concurrency.claim_worker import run_jobs
from tests.concurrency.conftest import UsageMonitor, run_client_process
from tests.factories import InventoryFactory, ResourceProviderFactory, resource_class

pytestmark = [pytest.mark.needs_row_locks]

PROJECT = "race-project"
USER = "race-user"


def _provider(total):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, resource_class=resource_class("VCPU"), total=total,
                     max_unit=total)
    return rp


def _usage(rp):
    return sum(Allocation.objects.filter(resource_provider=rp).values_list("used", flat=True))


def _claim(rp_uuid, mv="1.28"):
    return {
        "method": "PUT",
        "path": f"/allocations/{uuid.uuid4()}",
        "mv": mv,
        "body": {
            "allocations": {rp_uuid: {"resources": {"VCPU": 1}}},
            "project_id": PROJECT,
            "user_id": USER,
            "consumer_generation": None,
        },
    }


def _gather(procs):
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        results.extend(json.loads(out))
    return results


def _report(title, figures):
    print(f"\n[race] {title}: " + ", ".join(f"{k}={v}" for k, v in figures.items()))


def test_threads_and_processes_claim_a_small_provider(placement_server):
    capacity = 7
    rp = _provider(capacity)
    start_at = time.time() + 3.0
    per_client, threads = 24, 12
    jobs = [
        {"base": placement_server, "threads": threads, "start_at": start_at,
         "requests": [_claim(rp.uuid) for _ in range(per_client)]}
        for _ in range(3)
    ]
    with UsageMonitor([rp.pk]) as monitor:
        procs = [run_client_process(job) for job in jobs[1:]]  # two client processes
        results = run_jobs(jobs[0])  # plus this process's threads
        results += _gather(procs)
    statuses = Counter(r[0] for r in results)
    refusals = Counter(r[2].split("\n\n ")[-1].split(":")[0] for r in results if r[0] == 409)
    final = _usage(rp)
    rp.refresh_from_db()
    _report("PUT claims, 3 client processes x 12 threads, gunicorn 3 workers x 4 threads", {
        "attempted": len(results), "succeeded": statuses[204], "refused_409": statuses[409],
        "other": {k: v for k, v in statuses.items() if k not in (204, 409)},
        "final_usage": final, "capacity": capacity, "max_usage_seen": monitor.maxima[rp.pk],
        "monitor_polls": monitor.polls, "provider_generation": rp.generation,
    })
    assert len(results) == 3 * per_client
    assert statuses[204] == capacity
    assert statuses[409] == len(results) - capacity
    assert set(statuses) == {204, 409}, statuses
    assert all("exceed the capacity" in r[2] for r in results if r[0] == 409), refusals
    assert final == capacity
    assert monitor.maxima[rp.pk] <= capacity
    assert Consumer.objects.count() == capacity  # refused claims leave no consumer behind
    assert rp.generation == capacity  # one bump per successful claim (factory inventory: 0)


def test_moves_while_others_claim(placement_server):
    """POST /allocations moves consumers between two providers while new claims race in."""
    capacity = 15
    a, b = _provider(capacity), _provider(capacity)
    movers = 4
    # Each mover holds 1 VCPU on A under a consumer uuid; it moves to a fresh
    # consumer on the other provider, back and forth, atomically.
    holders = []
    for _ in range(movers):
        consumer = str(uuid.uuid4())
        services.allocations_set(consumer_uuid=consumer, allocations={a.uuid: {"VCPU": 1}},
                                 project_id=PROJECT, user_id=USER, consumer_generation=None)
        holders.append(consumer)

    moves_done = Counter()
    move_refusals = Counter()
    same_provider_moves = Counter()
    move_results = []
    lock = threading.Lock()

    def mover(index, start_at, rounds):
        import requests

        session = requests.Session()
        current, where = holders[index], a.uuid
        time.sleep(max(0, start_at - time.time()))
        for round_ in range(rounds):
            # Even rounds hand the unit to a fresh consumer on the same provider
            # (always fits: the old one is released in the same transaction);
            # odd rounds try the other provider (refused when it is full).
            other = b.uuid if where == a.uuid else a.uuid
            target = where if round_ % 2 == 0 else other
            fresh = str(uuid.uuid4())
            body = {
                current: {"allocations": {}, "project_id": PROJECT, "user_id": USER,
                          "consumer_generation": 1},
                fresh: {"allocations": {target: {"resources": {"VCPU": 1}}},
                        "project_id": PROJECT, "user_id": USER, "consumer_generation": None},
            }
            r = session.post(placement_server + "/allocations", json=body, timeout=60,
                             headers={"x-auth-token": "admin",
                                      "openstack-api-version": "placement 1.28"})
            with lock:
                move_results.append(r.status_code)
                if target == where:
                    same_provider_moves[r.status_code] += 1
                if r.status_code == 409:
                    move_refusals["capacity" if "capacity" in r.text else r.text[:300]] += 1
            if r.status_code == 204:
                current, where = fresh, target
                with lock:
                    moves_done[index] += 1
        with lock:
            holders[index] = (current, where)

    start_at = time.time() + 3.0
    claim_jobs = [
        {"base": placement_server, "threads": 8, "start_at": start_at,
         "requests": [_claim(a.uuid if i % 2 else b.uuid) for i in range(12)]}
        for _ in range(3)
    ]
    with UsageMonitor([a.pk, b.pk]) as monitor:
        procs = [run_client_process(job) for job in claim_jobs[1:]]
        mover_threads = [threading.Thread(target=mover, args=(i, start_at, 15))
                         for i in range(movers)]
        for t in mover_threads:
            t.start()
        claims = run_jobs(claim_jobs[0])
        for t in mover_threads:
            t.join(timeout=300)
        claims += _gather(procs)
    claim_status = Counter(r[0] for r in claims)
    move_status = Counter(move_results)
    usage_a, usage_b = _usage(a), _usage(b)
    _report("POST moves + PUT claims on two providers", {
        "claims_attempted": len(claims), "claims_succeeded": claim_status[204],
        "claims_refused_409": claim_status[409],
        "moves_attempted": len(move_results), "moves_succeeded": move_status[204],
        "moves_refused_409": move_status[409], "move_refusals": dict(move_refusals),
        "same_provider_moves": dict(same_provider_moves),
        "usage_a": usage_a, "usage_b": usage_b, "capacity_each": capacity,
        "max_seen_a": monitor.maxima[a.pk], "max_seen_b": monitor.maxima[b.pk],
    })
    assert set(claim_status) <= {204, 409}, claim_status
    assert set(move_status) <= {204, 409}, move_status
    assert set(move_refusals) <= {"capacity"}, move_refusals
    assert move_status[204] > 0
    assert set(same_provider_moves) == {204}, same_provider_moves
    # Movers keep holding exactly one unit each; claims fill the rest, never more.
    assert usage_a + usage_b == movers + claim_status[204]
    assert usage_a <= capacity and usage_b <= capacity
    assert monitor.maxima[a.pk] <= capacity and monitor.maxima[b.pk] <= capacity
    # A refused claim saw its provider full; afterwards only movers can leave it.
    targets = [req["body"]["allocations"] for job in claim_jobs for req in job["requests"]]
    for rp, usage in ((a, usage_a), (b, usage_b)):
        refused = [r for r, t in zip(claims, targets) if rp.uuid in t and r[0] == 409]
        if refused:
            assert usage >= capacity - movers
            assert all("exceed the capacity" in r[2] for r in refused)
    # Every consumer holds allocations (moved-from consumers are gone); movers are intact.
    assert Consumer.objects.filter(allocations__isnull=True).count() == 0
    assert Consumer.objects.count() == movers + claim_status[204]
    for current, where in holders:
        assert list(Allocation.objects.filter(consumer__uuid=current).values_list(
            "resource_provider__uuid", "used")) == [(where, 1)]


def test_service_level_threads_never_overcommit(transactional_db):
    """Direct service calls from threads, each on its own database connection."""
    capacity, attempts = 5, 30
    rp = _provider(capacity)
    barrier = threading.Barrier(attempts)
    outcome = Counter()
    lock = threading.Lock()

    def claim():
        try:
            barrier.wait(timeout=30)
            services.allocations_set(consumer_uuid=str(uuid.uuid4()),
                                     allocations={rp.uuid: {"VCPU": 1}}, project_id=PROJECT,
                                     user_id=USER, consumer_generation=None)
            result = "ok"
        except errors.Conflict as exc:
            result = "409-capacity" if "capacity" in exc.detail else f"409-{exc.code}"
        except Exception as exc:  # anything else is a failure of the test
            result = f"error {exc!r}"
        finally:
            connections["default"].close()
        with lock:
            outcome[result] += 1

    threads = [threading.Thread(target=claim) for _ in range(attempts)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    final = _usage(rp)
    _report("service threads", {"attempted": attempts, "outcome": dict(outcome),
                                "final_usage": final, "capacity": capacity})
    assert outcome["ok"] == capacity
    assert outcome["409-capacity"] == attempts - capacity
    assert final == capacity


def test_concurrent_creators_of_one_consumer(transactional_db):
    """Many writers create the same new consumer (and project/user) at once: one wins."""
    rp = _provider(100)
    consumer = str(uuid.uuid4())
    writers = 12
    barrier = threading.Barrier(writers)
    outcome = Counter()
    lock = threading.Lock()

    def write(i):
        try:
            barrier.wait(timeout=30)
            services.allocations_set(consumer_uuid=consumer, allocations={rp.uuid: {"VCPU": 1}},
                                     project_id=f"new-project-{i % 2}",
                                     user_id=f"new-user-{i % 3}", consumer_generation=None)
            result = "ok"
        except errors.Conflict as exc:
            result = f"409 {exc.code}"
        except Exception as exc:
            result = f"error {exc!r}"
        finally:
            connections["default"].close()
        with lock:
            outcome[result] += 1

    threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    _report("same new consumer", {"writers": writers, "outcome": dict(outcome)})
    assert outcome["ok"] == 1
    assert outcome["409 placement.concurrent_update"] == writers - 1
    assert Consumer.objects.get(uuid=consumer).generation == 1
    assert _usage(rp) == 1


def test_mixed_writers_on_shared_consumers(transactional_db):
    """PUT, POST (swaps) and DELETE hammer a few shared consumers: no crash, no over-commit."""
    import random

    capacity = 6
    a, b = _provider(capacity), _provider(capacity)
    consumers = [str(uuid.uuid4()) for _ in range(5)]
    workers, rounds = 10, 15
    barrier = threading.Barrier(workers)
    outcome = Counter()
    lock = threading.Lock()

    def work(seed):
        rng = random.Random(seed)
        try:
            barrier.wait(timeout=30)
            for _ in range(rounds):
                op = rng.choice(["put", "put", "swap", "delete"])
                c1, c2 = rng.sample(consumers, 2)
                target = rng.choice([a.uuid, b.uuid])
                try:
                    if op == "put":
                        services.allocations_set(
                            consumer_uuid=c1, allocations={target: {"VCPU": rng.randint(1, 3)}},
                            project_id=PROJECT, user_id=USER)
                    elif op == "swap":
                        services.allocations_replace(requests=[
                            services.ConsumerAllocations(uuid=c1, allocations={},
                                                         project_id=PROJECT, user_id=USER),
                            services.ConsumerAllocations(
                                uuid=c2, allocations={target: {"VCPU": 2}},
                                project_id=PROJECT, user_id=USER),
                        ])
                    else:
                        services.allocations_delete(consumer_uuid=c1)
                    result = f"{op} ok"
                except errors.PlacementError as exc:
                    kind = "-retries-exhausted" if exc.code == errors.CONCURRENT_UPDATE else ""
                    result = f"{op} {exc.status}{kind}"
                with lock:
                    outcome[result] += 1
        except Exception as exc:
            with lock:
                outcome[f"error {exc!r}"] += 1
        finally:
            connections["default"].close()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(workers)]
    with UsageMonitor([a.pk, b.pk]) as monitor:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
    _report("mixed PUT/POST/DELETE on 5 shared consumers", {
        "operations": sum(outcome.values()), "outcome": dict(sorted(outcome.items())),
        "usage_a": _usage(a), "usage_b": _usage(b), "capacity_each": capacity,
        "max_seen_a": monitor.maxima[a.pk], "max_seen_b": monitor.maxima[b.pk],
    })
    assert not [k for k in outcome if k.startswith("error")], outcome
    assert sum(outcome.values()) == workers * rounds
    # Only capacity refusals (409) and deletes of consumers without allocations (404);
    # a swap (two shared consumers in one POST, against every other writer of
    # both) may also run out of retries on a loaded machine and answer the
    # protocol's concurrent_update 409, which changes nothing. A PUT or a
    # DELETE of one consumer must not.
    exhausted = {k for k in outcome if k.endswith("409-retries-exhausted")}
    assert exhausted <= {"swap 409-retries-exhausted"}, outcome
    assert {k.split()[1] for k in outcome if k not in exhausted} <= {"ok", "409", "404"}, outcome
    assert monitor.maxima[a.pk] <= capacity and monitor.maxima[b.pk] <= capacity
    assert Consumer.objects.filter(allocations__isnull=True).count() == 0
