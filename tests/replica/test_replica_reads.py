"""[placement_database] slave_connection against a real streaming replica:
which reads go where, read-your-writes, the lag bound, a replica that is
down or stopped under load, and a stale candidate refused at claim time."""
import threading
import time
import uuid

import pytest

from tests.replica.conftest import (
    cluster, delta, pause_replay, primary, resume_replay, wait_caught_up,
)

pytestmark = pytest.mark.replica


def make_provider(server, total=8):
    rp = str(uuid.uuid4())
    r = server.call("POST", "/resource_providers", json={"name": f"rp-{rp}", "uuid": rp})
    assert r.status_code == 200, r.text
    r = server.call("PUT", f"/resource_providers/{rp}/inventories", json={
        "resource_provider_generation": 0, "inventories": {"VCPU": {"total": total}}})
    assert r.status_code == 200, r.text
    return rp


def claim(server, rp, amount, consumer=None, project="p"):
    return server.call("PUT", f"/allocations/{consumer or uuid.uuid4()}", json={
        "allocations": {rp: {"resources": {"VCPU": amount}}}, "project_id": project,
        "user_id": "u", "consumer_generation": None, "consumer_type": "INSTANCE"})


def listed(server):
    r = server.call("GET", "/resource_providers")
    assert r.status_code == 200, r.text
    return {p["uuid"] for p in r.json()["resource_providers"]}


BULK = ["/allocation_candidates?resources=VCPU:1", "/resource_providers",
        "/resource_providers/{rp}/usages", "/usages?project_id={project}"]
OTHER = ["/resource_providers/{rp}", "/resource_providers/{rp}/inventories",
         "/allocations/{consumer}", "/resource_providers/{rp}/allocations", "/traits",
         "/resource_classes"]


def test_bulk_reads_go_to_the_replica_and_everything_else_to_the_primary(server):
    s = server(max_lag=0)
    rp, consumer, project = make_provider(s), str(uuid.uuid4()), str(uuid.uuid4())
    assert claim(s, rp, 2, consumer, project).status_code == 204
    wait_caught_up()
    before = s.bulk_reads()
    for path in BULK:
        r = s.call("GET", path.format(rp=rp, project=project))
        assert r.status_code == 200, (path, r.text)
    assert r.json()["usages"] == {"INSTANCE": {"VCPU": 2, "consumer_count": 1}}
    middle = s.bulk_reads()
    assert delta(middle, before) == {("replica", "fresh"): len(BULK)}
    for path in OTHER:
        assert s.call("GET", path.format(rp=rp, consumer=consumer)).status_code == 200, path
    assert claim(s, rp, 1).status_code == 204
    assert delta(s.bulk_reads(), middle) == {}


def test_a_replica_read_sees_the_clients_own_writes(server):
    """max_lag 0 (the default): a write acknowledged before a bulk read began
    is in its answer, wherever it was served."""
    s = server(max_lag=0)
    before = s.bulk_reads()
    for _ in range(30):
        rp = make_provider(s)
        assert rp in listed(s)
        assert claim(s, rp, 3).status_code == 204
        usages = s.call("GET", f"/resource_providers/{rp}/usages").json()["usages"]
        assert usages == {"VCPU": 3}
    served = delta(s.bulk_reads(), before)
    print(f"\nread-your-writes, 60 bulk reads right after a write: {served}")
    assert sum(served.values()) == 60


def test_the_stale_replica_serves_only_within_the_lag_bound(server):
    s = server(max_lag=2)
    make_provider(s)
    wait_caught_up()
    pause_replay()
    fresh = make_provider(s)
    # Behind, but by less than 2 s of commits: the replica serves, stale.
    before = s.bulk_reads()
    assert fresh not in listed(s)
    assert delta(s.bulk_reads(), before) == {("replica", "fresh"): 1}
    # The provider is on the primary, where single reads go.
    assert s.call("GET", f"/resource_providers/{fresh}").status_code == 200
    time.sleep(2.5)
    before = s.bulk_reads()
    assert fresh in listed(s)
    assert delta(s.bulk_reads(), before) == {("primary", "lagging"): 1}
    resume_replay()
    wait_caught_up()
    time.sleep(0.1)
    before = s.bulk_reads()
    assert fresh in listed(s)
    assert delta(s.bulk_reads(), before) == {("replica", "fresh"): 1}


def test_a_lagging_replica_falls_back_to_the_primary(server):
    s = server(max_lag=0)
    pause_replay()
    rp = make_provider(s)
    before = s.bulk_reads()
    assert rp in listed(s)
    r = s.call("GET", "/allocation_candidates?resources=VCPU:8")
    assert rp in r.json()["provider_summaries"]
    assert delta(s.bulk_reads(), before) == {("primary", "lagging"): 2}


def test_a_stale_candidate_is_refused_at_claim_time(server):
    """A scheduler reading candidates from a replica that lags (allowed here,
    an hour of lag) may be offered a provider already full on the primary;
    the claim is checked on the primary under the provider's lock and is
    refused: nothing is over-committed."""
    s = server(max_lag=3600)
    rp = make_provider(s, total=4)
    wait_caught_up()
    pause_replay()
    assert claim(s, rp, 4).status_code == 204  # the provider is now full
    before = s.bulk_reads()
    r = s.call("GET", "/allocation_candidates?resources=VCPU:4")
    assert delta(s.bulk_reads(), before) == {("replica", "fresh"): 1}
    stale = [a for a in r.json()["allocation_requests"] if rp in a["allocations"]]
    assert stale, "the lagging replica should still offer the full provider"
    late = str(uuid.uuid4())
    r = s.call("PUT", f"/allocations/{late}", json={
        **stale[0], "project_id": "p", "user_id": "u", "consumer_generation": None,
        "consumer_type": "INSTANCE"})
    assert r.status_code == 409, r.text
    assert r.json()["errors"][0]["code"] == "placement.undefined_code"
    used = primary("SELECT COALESCE(SUM(a.used), 0) FROM allocations a "
                   "JOIN resource_providers p ON p.id = a.resource_provider_id WHERE p.uuid = %s",
                   (rp,))[0][0]
    assert used == 4
    assert s.call("GET", f"/allocations/{late}").json()["allocations"] == {}
    resume_replay()


def test_a_replica_that_is_down_falls_back_and_is_used_again(server):
    s = server(max_lag=0)
    rp = make_provider(s)
    cluster("stop-replica")
    try:
        before = s.bulk_reads()
        started = time.monotonic()
        for _ in range(10):
            assert rp in listed(s)
        took = time.monotonic() - started
        served = delta(s.bulk_reads(), before)
        print(f"\nreplica down: 10 provider lists in {took:.2f} s, {served}")
        assert served == {("primary", "down"): 10}
    finally:
        cluster("start-replica")
    wait_caught_up()
    time.sleep(5.2)  # placement_core.replica.DOWN_SECONDS
    before = s.bulk_reads()
    assert rp in listed(s)
    assert delta(s.bulk_reads(), before) == {("replica", "fresh"): 1}


@pytest.mark.parametrize("max_lag", [0, 1])
def test_replica_stopped_under_load(server, max_lag):
    """Clients claim and read while the replica is stopped and started again:
    every answer is a success; the reads move to the primary and back.
    Under a steady stream of writes the replica is always a few milliseconds
    behind, so with max_lag 0 most bulk reads go to the primary."""
    s = server(max_lag=max_lag)
    rp = make_provider(s, total=100000)
    statuses, lock, stop = {}, threading.Lock(), threading.Event()

    def client():
        while not stop.is_set():
            for method, path in (("PUT", None), ("GET", "/resource_providers"),
                                 ("GET", f"/resource_providers/{rp}/usages"),
                                 ("GET", "/allocation_candidates?resources=VCPU:1&limit=5")):
                r = claim(s, rp, 1) if method == "PUT" else s.call("GET", path)
                with lock:
                    statuses[r.status_code] = statuses.get(r.status_code, 0) + 1

    threads = [threading.Thread(target=client) for _ in range(6)]
    before = s.bulk_reads()
    for t in threads:
        t.start()
    time.sleep(3)
    cluster("stop-replica")
    time.sleep(4)
    cluster("start-replica")
    time.sleep(8)
    stop.set()
    for t in threads:
        t.join()
    served = delta(s.bulk_reads(), before)
    print(f"\nreplica stopped under load (max_lag {max_lag}): statuses {statuses}, "
          f"bulk reads {served}")
    assert set(statuses) <= {200, 204}
    assert served.get(("replica", "fresh"), 0) > 0
    assert served.get(("primary", "down"), 0) + served.get(("primary", "failed"), 0) > 0
