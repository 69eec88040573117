"""The database restarting under load, played by cutting every connection
through a TCP proxy: requests meanwhile answer 503 in Placement's error
format with Retry-After and code placement.database_unavailable, never 500;
once the database is back the server recovers by itself, and a write
refused before it reached the database left nothing behind (one cut while
its COMMIT was in flight may have been stored, and is read back)."""
import threading
import time
import uuid

import pytest
import requests

pytestmark = pytest.mark.network_database

HEADERS = {"x-auth-token": "admin", "openstack-api-version": "placement 1.39",
           "accept": "application/json"}
CLIENTS = 8


def _setup(base):
    rp = str(uuid.uuid4())
    r = requests.post(f"{base}/resource_providers", headers=HEADERS,
                      json={"name": f"rp-{rp}", "uuid": rp})
    assert r.status_code == 200, r.text
    r = requests.put(f"{base}/resource_providers/{rp}/inventories", headers=HEADERS,
                     json={"resource_provider_generation": 0,
                           "inventories": {"VCPU": {"total": 100000}}})
    assert r.status_code == 200, r.text
    return rp


class Load:
    """CLIENTS threads, each claiming one VCPU for a new consumer, reading it
    back and deleting it, over and over; every answer is recorded with the
    moment its request started and ended."""

    def __init__(self, base, rp):
        self.base, self.rp = base, rp
        self.records = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(i,)) for i in range(CLIENTS)]

    def _call(self, client, method, path, **kw):
        started = time.monotonic()
        try:
            r = requests.request(method, self.base + path, headers=HEADERS, timeout=30, **kw)
            status, retry, body = r.status_code, r.headers.get("Retry-After"), r.text
        except requests.RequestException as exc:
            status, retry, body = None, None, repr(exc)
        with self.lock:
            self.records.append({"client": client, "method": method, "path": path,
                                 "start": started, "end": time.monotonic(),
                                 "status": status, "retry": retry, "body": body})
        return status

    def _run(self, client):
        while not self.stop.is_set():
            consumer = str(uuid.uuid4())
            path = f"/allocations/{consumer}"
            status = self._call(client, "PUT", path, json={
                "allocations": {self.rp: {"resources": {"VCPU": 1}}},
                "project_id": "p", "user_id": "u", "consumer_generation": None,
                "consumer_type": "INSTANCE"})
            if status == 204:
                self._call(client, "GET", path)
                self._call(client, "DELETE", path)
            else:
                self._call(client, "GET", f"/resource_providers/{self.rp}/usages")

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=60)


def _wait_for(predicate, limit):
    """Poll; a generous limit only keeps a broken server from hanging the suite."""
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_database_restart_under_load_answers_503_then_recovers(proxied_server):
    base, proxy = proxied_server
    rp = _setup(base)
    with Load(base, rp) as load:
        assert _wait_for(lambda: len(load.records) >= 40, 60)
        cut = time.monotonic()
        proxy.sever()
        # Every client must see the outage, on every kind of request it makes.
        assert _wait_for(lambda: sum(1 for r in load.records if r["start"] > cut) >= 60, 60)
        restored = time.monotonic()
        proxy.restore()
        recovered = {}

        def all_recovered():
            with load.lock:
                for r in load.records:
                    if r["start"] > restored and r["status"] in (200, 204):
                        recovered.setdefault(r["client"], r["end"])
            return len(recovered) == CLIENTS

        assert _wait_for(all_recovered, 60), "not every client got an answer after the restore"
        settled = max(recovered.values())
        assert _wait_for(lambda: sum(1 for r in load.records if r["start"] > settled) >= 80, 60)
    records = load.records

    statuses = {r["status"] for r in records}
    assert statuses <= {200, 204, 503}, [r["body"] for r in records if r["status"] not in (200, 204, 503)][:3]
    before = [r for r in records if r["end"] < cut]
    during = [r for r in records if r["start"] > cut and r["end"] < restored]
    after = [r for r in records if r["start"] > settled]
    assert before and all(r["status"] in (200, 204) for r in before)
    assert during and all(r["status"] == 503 for r in during)
    assert {"PUT", "GET"} <= {r["method"] for r in during}
    for r in during:
        assert r["retry"] == "5"
        error = requests.models.complexjson.loads(r["body"])["errors"][0]
        assert error["code"] == "placement.database_unavailable"
        assert error["title"] == "Service Unavailable"
        assert error["status"] == 503
    # Once every client has been answered again, nothing fails any more.
    assert after and all(r["status"] in (200, 204) for r in after)

    # A claim refused during the outage stored nothing; the usage is what the
    # successful claims left (each was deleted again, or the delete was refused).
    for r in during:
        if r["method"] == "PUT":
            got = requests.get(base + r["path"], headers=HEADERS).json()
            assert got["allocations"] == {}
    #
    # A write under way when the connections were cut (started before, ended
    # after) may have lost its connection while its COMMIT was in flight:
    # the database may have stored it though the server could only answer
    # 503. Such a consumer holds either what it held before or what the
    # write asked for, and the client must read it back to know which.
    kept = requests.get(f"{base}/resource_providers/{rp}/usages", headers=HEADERS).json()
    held, unsure = set(), {}
    for r in sorted(records, key=lambda r: r["end"]):
        if r["method"] not in ("PUT", "DELETE"):
            continue
        if r["status"] == 204:
            (held.add if r["method"] == "PUT" else held.discard)(r["path"])
            unsure.pop(r["path"], None)
        elif r["start"] <= cut < r["end"]:
            unsure[r["path"]] = {r["path"] in held, r["method"] == "PUT"}
    holding = set(held) - set(unsure)
    for path, possible in unsure.items():
        now = bool(requests.get(base + path, headers=HEADERS).json()["allocations"])
        assert now in possible, (path, now, possible)
        if now:
            holding.add(path)
    assert kept["usages"].get("VCPU", 0) == len(holding)

    print(f"\ndatabase restart: {len(during)} requests during the outage "
          f"(statuses {sorted({r['status'] for r in during})}), "
          f"first success {min(recovered.values()) - restored:.3f} s after the restore, "
          f"every client back after {settled - restored:.3f} s; "
          f"{len(before)} before, {len(after)} after, all 2xx")
