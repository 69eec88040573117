"""The two races of issue 36, each run against a list of servers.

Clients are spread over the servers round-robin (client i talks to
``bases[i % len(bases)]``), so with two servers half the writers go through
upstream and half through this service, all at the same moment.  Every
answer is counted under the side that gave it.

* ``claims_race``: a provider with 4 VCPU, 12 clients each claim 1 VCPU for
  a new consumer at once.  Exactly 4 may succeed; every other answer must be
  a 409.  An over-commit is usage above capacity afterwards.
* ``consumer_race``: one consumer; each writer adds its own provider to the
  consumer's allocations by read (GET, its consumer generation) and write
  (PUT with that generation), again after every 409.  A lost write is a
  writer told 204 whose provider is missing from the final allocations.
"""
import threading
import uuid
from collections import Counter

import requests

from tests.onedb.cloud import PROJECT, USER, allocate, call

MV = "1.28"  # consumer generations; no consumer types, as Nova's older computes


def _send(session, base, method, path, body=None):
    try:
        response = session.request(method, base + path, json=body, timeout=120, headers={
            "x-auth-token": "admin", "accept": "application/json",
            "openstack-api-version": f"placement {MV}"})
    except requests.RequestException:
        return 0, None
    return response.status_code, (response.json() if response.content else None)


def _at_once(count, work):
    barrier = threading.Barrier(count)
    results = [None] * count

    def run(index):
        barrier.wait()
        results[index] = work(index)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def provider(base, vcpus):
    """A new provider with ``vcpus`` VCPU (max_unit all of them); its uuid."""
    rp = call(base, "POST", "/resource_providers", {"name": f"race-{uuid.uuid4()}"})["uuid"]
    call(base, "PUT", f"/resource_providers/{rp}/inventories", {
        "resource_provider_generation": 0,
        "inventories": {"VCPU": {"total": vcpus, "max_unit": vcpus}}})
    return rp


class Figures:
    """Counts per side: answers by status, over-commits, lost writes."""

    def __init__(self):
        self.status = {}
        self.overcommit = 0
        self.overcommit_rounds = []
        self.short_rounds = []  # fewer claims granted than the capacity allowed
        self.lost = Counter()
        self.rounds = 0
        self._lock = threading.Lock()

    def count(self, side, status):
        with self._lock:
            self.status.setdefault(side, Counter())[status] += 1

    def server_errors(self, side=None):
        return sum(n for s, counts in self.status.items() if side in (None, s)
                   for code, n in counts.items() if code >= 500 or code == 0)

    def as_dict(self):
        return {"rounds": self.rounds,
                "answers": {s: dict(sorted(c.items())) for s, c in sorted(self.status.items())},
                "overcommit": self.overcommit, "overcommit_rounds": self.overcommit_rounds,
                "short_rounds": self.short_rounds,
                "lost": dict(self.lost), "5xx": self.server_errors()}


def claims_race(servers, rounds=5, clients=12, capacity=4):
    """``servers``: list of (side, base). Returns Figures."""
    figures = Figures()
    setup = servers[0][1]
    for _ in range(rounds):
        rp = provider(setup, capacity)

        def claim(index):
            side, base = servers[index % len(servers)]
            with requests.Session() as session:
                status, _ = _send(session, base, "PUT", f"/allocations/{uuid.uuid4()}", {
                    "allocations": {rp: {"resources": {"VCPU": 1}}},
                    "project_id": PROJECT, "user_id": USER, "consumer_generation": None})
            return side, status

        results = _at_once(clients, claim)
        for side, status in results:
            figures.count(side, status)
        won = Counter(side for side, status in results if status == 204)
        used = call(setup, "GET", f"/resource_providers/{rp}/usages")["usages"]["VCPU"]
        if used > capacity or sum(won.values()) > capacity:
            figures.overcommit += max(used, sum(won.values())) - capacity
            figures.overcommit_rounds.append({"used": used, "won": dict(won)})
        elif used < capacity:
            figures.short_rounds.append({"used": used, "won": dict(won)})
        figures.rounds += 1
    return figures


def consumer_race(servers, rounds=3, writers=8, attempts=60):
    figures = Figures()
    setup = servers[0][1]
    for _ in range(rounds):
        home = provider(setup, 8)
        consumer = str(uuid.uuid4())
        allocate(setup, consumer, {home: {"VCPU": 1}}, consumer_type=None)
        own = [provider(setup, 8) for _ in range(writers)]

        def write(index):
            side, base = servers[index % len(servers)]
            with requests.Session() as session:
                for _attempt in range(attempts):
                    status, body = _send(session, base, "GET", f"/allocations/{consumer}")
                    figures.count(side, status)
                    if status != 200:
                        continue
                    allocations = {rp: {"resources": a["resources"]}
                                   for rp, a in body["allocations"].items()}
                    allocations[own[index]] = {"resources": {"VCPU": 1}}
                    status, _ = _send(session, base, "PUT", f"/allocations/{consumer}", {
                        "allocations": allocations, "project_id": PROJECT, "user_id": USER,
                        "consumer_generation": body["consumer_generation"]})
                    figures.count(side, status)
                    if status == 204:
                        return side, True
            return side, False

        results = _at_once(writers, write)
        final = call(setup, "GET", f"/allocations/{consumer}", mv=MV)["allocations"]
        for index, (side, acknowledged) in enumerate(results):
            if acknowledged and own[index] not in final:
                figures.lost[side] += 1
        figures.rounds += 1
    return figures
