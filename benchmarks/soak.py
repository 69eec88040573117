"""Soak: two gunicorn servers on one database, 16 clients, >= 10,000 writes.

Each client owns the consumers it creates, so the last write the service
acknowledged (204) for a consumer is known exactly; the providers are
shared, so clients race for capacity through both servers.  The writes mix
claims for new consumers (PUT /allocations/{c}), moves of a consumer to
another provider (POST /allocations) and deletions.  Afterwards, read back
through the API:

- no provider's usage above its capacity ((total - reserved) * ratio);
- each provider's usage equals the sum of the allocations it lists, and the
  sum of what the clients were told is stored;
- every consumer's allocations are exactly its last 204 (none after a delete).

It prints those counts, the 409s by error code and every 5xx (must be 0) and
exits non-zero if any check fails.  `make soak` (PostgreSQL), or
`make soak SOAK_DB=mysql://root@127.0.0.1:3306` for MariaDB/MySQL; the
database is created and dropped here.
"""
import argparse
import collections
import json
import os
import random
import subprocess
import sys
import threading
import time
import uuid
from urllib.parse import urlsplit

import requests

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUNICORN = os.path.join(ROOT, ".venv", "bin", "gunicorn")
PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
HEADERS = {"x-auth-token": "admin", "openstack-api-version": "placement 1.39",
           "accept": "application/json"}
RESOURCES = ("VCPU", "MEMORY_MB")


def admin(server, statement):
    """One administrative statement on the database server (no database selected)."""
    parts = urlsplit(server)
    if parts.scheme.startswith("mysql"):
        import pymysql

        conn = pymysql.connect(host=parts.hostname or "127.0.0.1", port=parts.port or 3306,
                               user=parts.username or "root", password=parts.password or "",
                               autocommit=True)
    else:
        import psycopg

        conn = psycopg.connect(host=parts.hostname or "127.0.0.1", port=parts.port or 5432,
                               user=parts.username or None, password=parts.password or None,
                               dbname="postgres", autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(statement)
    finally:
        conn.close()


def server_env(database_url):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PLACEMENT_", "OS_")) and k != "DJANGO_SETTINGS_MODULE"}
    env.update(DATABASE_URL=database_url, PLACEMENT_AUTH_STRATEGY="noauth2",
               PLACEMENT_LOG_LEVEL="WARNING", PLACEMENT_REQUEST_LOG_LEVEL="WARNING")
    return env


def start_server(database_url, port, log_path):
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [GUNICORN, "placement_site.wsgi:application", "-b", f"127.0.0.1:{port}",
         "-w", "2", "-k", "gthread", "--threads", "4", "--timeout", "120",
         # Longer than any client's pause: a server closing an idle
         # keep-alive connection while a client reuses it is not the
         # service failing.
         "--keep-alive", "75"],
        cwd=ROOT, env=server_env(database_url), stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while True:
        try:
            requests.get(base + "/", timeout=2)
            return proc, base
        except requests.RequestException:
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"gunicorn on {port} did not start; see {log_path}")
            time.sleep(0.3)


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.by_op = collections.Counter()
        self.conflicts = collections.Counter()
        self.server_errors = []
        self.writes = 0

    def note(self, op, exc):
        with self.lock:
            self.server_errors.append((op, repr(exc)[:300]))

    def record(self, op, response):
        with self.lock:
            if response is None:
                self.by_op[(op, "no answer")] += 1
                return
            self.by_op[(op, response.status_code)] += 1
            if op != "read":
                self.writes += 1
            if response.status_code == 409:
                try:
                    code = response.json()["errors"][0].get("code", "?")
                except ValueError:
                    code = "not JSON"
                self.conflicts[(op, code)] += 1
            elif response.status_code >= 500:
                self.server_errors.append((op, response.status_code, response.text[:300]))


class Client(threading.Thread):
    """Owns its consumers: ``expected`` holds each one's last acknowledged
    allocations ({} once deleted); ``uncertain`` those whose last write got
    no clear answer (a 5xx or no answer), whose stored state the checks
    then read instead of predicting."""

    def __init__(self, index, bases, providers, writes, stats, seed):
        super().__init__(daemon=True)
        self.index, self.bases, self.providers = index, bases, providers
        self.writes, self.stats = writes, stats
        self.rng = random.Random(seed)
        self.session = requests.Session()
        self.session.headers.update(HEADERS)
        self.expected, self.generation, self.uncertain = {}, {}, set()
        self.project, self.user = f"project-{index % 4}", f"user-{index}"

    def _send(self, op, method, path, body=None):
        base = self.rng.choice(self.bases)
        try:
            response = self.session.request(method, base + path, json=body, timeout=120)
        except requests.RequestException as exc:
            response = None
            self.stats.note(op, exc)
        self.stats.record(op, response)
        return response

    def _refresh_generation(self, consumer):
        r = self._send("read", "GET", f"/allocations/{consumer}")
        if r is not None and r.status_code == 200:
            self.generation[consumer] = r.json().get("consumer_generation")

    def _amounts(self):
        return {"VCPU": self.rng.randint(1, 4), "MEMORY_MB": self.rng.choice((512, 1024, 2048))}

    def claim(self):
        consumer = str(uuid.uuid4())
        rp = self.rng.choice(self.providers)
        wanted = {rp: self._amounts()}
        r = self._send("claim", "PUT", f"/allocations/{consumer}", {
            "allocations": {p: {"resources": res} for p, res in wanted.items()},
            "project_id": self.project, "user_id": self.user,
            "consumer_generation": None, "consumer_type": "INSTANCE"})
        self._settle(consumer, r, wanted, previous={})

    def move(self, consumer):
        (old_rp, amounts), = self.expected[consumer].items()
        new_rp = self.rng.choice([p for p in self.providers if p != old_rp])
        wanted = {new_rp: amounts}
        r = self._send("move", "POST", "/allocations", {consumer: {
            "allocations": {p: {"resources": res} for p, res in wanted.items()},
            "project_id": self.project, "user_id": self.user,
            "consumer_generation": self.generation.get(consumer),
            "consumer_type": "INSTANCE"}})
        self._settle(consumer, r, wanted, previous=self.expected[consumer])

    def delete(self, consumer):
        r = self._send("delete", "DELETE", f"/allocations/{consumer}")
        self._settle(consumer, r, {}, previous=self.expected[consumer])

    def _settle(self, consumer, response, wanted, previous):
        if response is not None and response.status_code == 204:
            self.expected[consumer] = wanted
            self.uncertain.discard(consumer)
            if wanted:
                self._refresh_generation(consumer)
        elif response is None or response.status_code >= 500:
            self.expected[consumer] = previous
            self.uncertain.add(consumer)
        else:
            # Refused: what was there stays (nothing, for a refused claim).
            self.expected[consumer] = previous
            if response.status_code == 409 and previous:
                self._refresh_generation(consumer)

    def run(self):
        for _ in range(self.writes):
            held = [c for c, a in self.expected.items() if a and c not in self.uncertain]
            roll = self.rng.random()
            if not held or (len(held) < 12 and roll < 0.45):
                self.claim()
            elif roll < 0.75:
                self.move(self.rng.choice(held))
            else:
                self.delete(self.rng.choice(held))


def check(base, providers, clients):
    """The three invariants; returns (figures, failures)."""
    s = requests.Session()
    s.headers.update(HEADERS)
    failures, figures = [], collections.Counter()
    told = {rp: collections.Counter() for rp in providers}
    for client in clients:
        for consumer, allocs in client.expected.items():
            got = s.get(f"{base}/allocations/{consumer}").json()["allocations"]
            stored = {rp: a["resources"] for rp, a in got.items()}
            if consumer in client.uncertain:
                # No clear answer: either outcome is allowed, but it must be
                # one of them, and it counts towards the providers' sums.
                figures["consumers with no clear answer"] += 1
                for rp, res in stored.items():
                    told[rp].update(res)
                continue
            figures["consumers checked"] += 1
            if allocs:
                figures["consumers holding allocations"] += 1
            if stored != allocs:
                failures.append(f"consumer {consumer}: told {allocs}, stored {stored}")
            for rp, res in allocs.items():
                told[rp].update(res)
    for rp in providers:
        usages = s.get(f"{base}/resource_providers/{rp}/usages").json()["usages"]
        inventories = s.get(f"{base}/resource_providers/{rp}/inventories").json()["inventories"]
        listed = s.get(f"{base}/resource_providers/{rp}/allocations").json()["allocations"]
        summed = collections.Counter()
        for entry in listed.values():
            summed.update(entry["resources"])
        figures["providers checked"] += 1
        for rc, inv in inventories.items():
            used = usages.get(rc, 0)
            capacity = int((inv["total"] - inv["reserved"]) * inv["allocation_ratio"])
            if used > capacity:
                failures.append(f"provider {rp} {rc}: usage {used} above capacity {capacity}")
            if used != summed.get(rc, 0):
                failures.append(f"provider {rp} {rc}: usage {used}, allocations sum to "
                                f"{summed.get(rc, 0)}")
            if used != told[rp].get(rc, 0):
                failures.append(f"provider {rp} {rc}: usage {used}, acknowledged writes sum to "
                                f"{told[rp].get(rc, 0)}")
            figures[f"final fill {rc} %"] = max(figures[f"final fill {rc} %"],
                                               round(100 * used / capacity))
    return figures, failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", default=os.environ.get("SOAK_DB", "postgres://root@127.0.0.1:5432"),
                        help="database server URL without a database name")
    parser.add_argument("--writes", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--providers", type=int, default=8)
    parser.add_argument("--ports", default="18860,18861")
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()

    server = args.db.rstrip("/")
    name = f"placement_soak_{os.getpid()}"
    url = f"{server}/{name}"
    quote = "`" if server.startswith("mysql") else '"'
    admin(server, f"CREATE DATABASE {quote}{name}{quote}")
    procs = []
    logdir = os.environ.get("TMPDIR", "/tmp")
    try:
        subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT,
                       env=server_env(url), check=True)
        bases = []
        for port in args.ports.split(","):
            proc, base = start_server(url, int(port), os.path.join(logdir, f"soak-{port}.log"))
            procs.append(proc)
            bases.append(base)

        providers = []
        for i in range(args.providers):
            rp = str(uuid.uuid4())
            r = requests.post(f"{bases[0]}/resource_providers", headers=HEADERS,
                              json={"name": f"soak-{i}", "uuid": rp})
            r.raise_for_status()
            # Tight on purpose: the clients want more than fits, so claims
            # and moves race for the last units.
            r = requests.put(f"{bases[0]}/resource_providers/{rp}/inventories", headers=HEADERS,
                             json={"resource_provider_generation": 0, "inventories": {
                                 "VCPU": {"total": 16, "allocation_ratio": 2.0, "reserved": 1},
                                 "MEMORY_MB": {"total": 16384, "reserved": 512}}})
            r.raise_for_status()
            providers.append(rp)

        stats = Stats()
        per_client = -(-args.writes // args.clients)
        clients = [Client(i, bases, providers, per_client, stats, args.seed * 1000 + i)
                   for i in range(args.clients)]
        started = time.perf_counter()
        for c in clients:
            c.start()
        for c in clients:
            c.join()
        elapsed = time.perf_counter() - started

        figures, failures = check(bases[0], providers, clients)
        db_kind = "MariaDB/MySQL" if server.startswith("mysql") else "PostgreSQL"
        print(f"soak on {db_kind}: 2 gunicorn servers (-w 2 gthread x4), {args.clients} clients, "
              f"{len(providers)} providers")
        print(f"  writes: {stats.writes} in {elapsed:.1f} s ({stats.writes / elapsed:.0f}/s); "
              f"reads (generations): {sum(n for (op, _), n in stats.by_op.items() if op == 'read')}")
        for (op, status), n in sorted(stats.by_op.items(), key=lambda kv: str(kv[0])):
            print(f"  {op:7} {status}: {n}")
        print("  409s by code:")
        for (op, code), n in sorted(stats.conflicts.items()):
            print(f"    {op:7} {code}: {n}")
        print(f"  5xx or no answer: {len(stats.server_errors)}")
        for entry in stats.server_errors[:10]:
            print(f"    {entry}")
        for key, value in sorted(figures.items()):
            print(f"  {key}: {value}")
        print(f"  invariant failures: {len(failures)}")
        for line in failures[:20]:
            print(f"    {line}")
        ok = not failures and not stats.server_errors and stats.writes >= args.writes
        print(json.dumps({"ok": ok, "writes": stats.writes, "seconds": round(elapsed, 1),
                          "5xx": len(stats.server_errors), "failures": len(failures),
                          "409": sum(stats.conflicts.values())}))
        return 0 if ok else 1
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        force = "" if server.startswith("mysql") else " WITH (FORCE)"
        admin(server, f"DROP DATABASE {quote}{name}{quote}{force}")


if __name__ == "__main__":
    sys.exit(main())
