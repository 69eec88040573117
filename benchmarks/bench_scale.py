"""`make bench-scale`: this service and upstream on ONE loaded database.

    .venv/bin/python -m benchmarks.bench_scale [--providers 100000] [--fill 0.5]
        [--seed 1] [--db postgresql://root@127.0.0.1:5432 | mysql://root@127.0.0.1:3306]
        [--requests 20] [--upstream-requests N] [--storm-clients 200] [--storm-providers 50]
        [--database NAME] [--only SUBSTRING] [--skip-storm]

A fresh database is made by this service's `placement-manage db sync` (the
tables upstream's own db sync makes), filled by benchmarks/synthetic_cloud.py,
and served at once by both servers: gunicorn -w 2 each, noauth2, logging at
WARNING; upstream 16.0.0 from its cached virtualenv (see
benchmarks/compare_upstream.py).  Every read alternates between the two
servers request by request, so load on the shared machine weighs on both
alike; the answers' sizes must agree.

Reads timed: nova's candidates query (limit=1000) plain, with a required
trait and with member_of; a NUMA (PCPU in a HW_NUMA_ROOT subtree) query; an
Ironic-style CUSTOM_BAREMETAL_GOLD:1 query; GET /resource_providers whole
and filtered; GET /usages of a project; one provider's allocations.

The claim storm, per server in turn, on providers of its own: N clients
claim one VCPU each for new consumers across M fresh providers until every
one is full.  Every 409 must be a capacity refusal (not a generation
conflict), and the claims that succeeded must add up to the providers'
capacity exactly: no over-commit, no lost claim.

Last, each server's workers' resident memory.  The database is dropped at
the end, unless it was named with --database: then a database of that name
already loaded (by an earlier run, or by db sync and
benchmarks/synthetic_cloud.py) is reused as it is and kept, which saves the
load on every run after the first (a missing one is made and loaded).
--only keeps the reads whose name holds the text; --skip-storm leaves out
the claim storm (which adds providers to a kept database).  Exit status 1
when the servers' answers or the storm's checks disagree with what they
must be.
"""
import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
from concurrent.futures import ThreadPoolExecutor

from benchmarks import synthetic_cloud
from benchmarks.compare_upstream import (
    DEFAULT_UPSTREAM_VENV, GUNICORN, ROOT, HTTPFailure, call, ensure_upstream_venv, ms,
    percentile,
)

KINDS = ("ours", "upstream")
STORM_VCPU = 32


def _admin(url, sql):
    """Run one statement on the server's administrative database."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme.startswith("postgres"):
        env = dict(os.environ, PGOPTIONS="--client-min-messages=warning")
        subprocess.run(["psql", f"{url}/postgres", "-qAtc", sql], check=True, env=env,
                       stdout=subprocess.DEVNULL, timeout=300)
    else:
        import pymysql

        connection = pymysql.connect(host=parts.hostname, port=parts.port or 3306,
                                     user=parts.username or "root", password=parts.password or "")
        with connection.cursor() as cursor:
            cursor.execute(sql)
        connection.close()


def _exists(url, name):
    """Whether the server already has a database of this name."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme.startswith("postgres"):
        found = subprocess.run(["psql", f"{url}/postgres", "-qAtc",
                                f"SELECT 1 FROM pg_database WHERE datname = '{name}'"],
                               check=True, capture_output=True, text=True, timeout=60)
        return found.stdout.strip() == "1"
    import pymysql

    connection = pymysql.connect(host=parts.hostname, port=parts.port or 3306,
                                 user=parts.username or "root", password=parts.password or "")
    with connection.cursor() as cursor:
        found = cursor.execute("SHOW DATABASES LIKE %s", [name])
    connection.close()
    return bool(found)


def _driver_url(url, kind, name):
    parts = urllib.parse.urlsplit(url)
    if kind == "ours":
        return f"{url}/{name}"
    scheme = "postgresql+psycopg2" if parts.scheme.startswith("postgres") else "mysql+pymysql"
    return f"{scheme}://{parts.netloc}/{name}"


class Server:
    """One gunicorn (ours or upstream's) on the shared database."""

    def __init__(self, kind, args, database, port):
        self.kind, self.args, self.database, self.port = kind, args, database, port
        self.base = f"http://127.0.0.1:{port}"
        self.tmp = tempfile.mkdtemp(prefix=f"scale-{kind}-")
        self.log = open(os.path.join(self.tmp, "server.log"), "w")
        self.proc = None

    def env(self):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PLACEMENT_", "OS_")) and k not in
               ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
        if self.kind == "ours":
            env.update(DATABASE_URL=_driver_url(self.args.db, "ours", self.database),
                       PLACEMENT_AUTH_STRATEGY="noauth2", PLACEMENT_LOG_LEVEL="WARNING",
                       PLACEMENT_REQUEST_LOG_LEVEL="WARNING")
        else:
            with open(os.path.join(self.tmp, "placement.conf"), "w") as handle:
                handle.write(
                    "[DEFAULT]\ndebug = False\n"
                    "default_log_levels = placement=WARNING,sqlalchemy=WARNING,"
                    "oslo_db=WARNING,oslo_policy=WARNING,stevedore=WARNING\n"
                    "[api]\nauth_strategy = noauth2\n"
                    "[placement_database]\n"
                    f"connection = {_driver_url(self.args.db, 'upstream', self.database)}\n")
            env["OS_PLACEMENT_CONFIG_DIR"] = self.tmp
        return env

    def start(self):
        if self.kind == "ours":
            argv, cwd = [GUNICORN, "placement_site.wsgi:application"], ROOT
        else:
            argv = [os.path.join(self.args.upstream_venv, "bin", "gunicorn"),
                    "placement.wsgi.api:application"]
            cwd = self.tmp
        self.proc = subprocess.Popen(
            argv + ["-b", f"127.0.0.1:{self.port}", "-w", "2", "--timeout", "300"],
            cwd=cwd, env=self.env(), stdout=self.log, stderr=self.log, start_new_session=True)
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} server exited; see {self.log.name}")
            try:
                call(self.base, "GET", "/", timeout=5)
                return self
            except (OSError, HTTPFailure):
                time.sleep(0.3)
        raise RuntimeError(f"{self.kind} server did not answer; see {self.log.name}")

    def worker_rss_mb(self):
        """Resident memory of each worker (the children of gunicorn's master)."""
        sizes = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/status") as handle:
                    status = dict(line.split(":", 1) for line in handle if ":" in line)
            except OSError:
                continue
            if status.get("PPid", "").strip() == str(self.proc.pid):
                sizes.append(round(int(status["VmRSS"].split()[0]) / 1024))
        return sorted(sizes)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def _sample(base):
    """Names the queries need, read from the loaded cloud through the API."""
    _, _, aggs = call(base, "GET", "/resource_providers?name=compute-000000", mv="1.39")
    compute = aggs["resource_providers"][0]
    _, _, agg = call(base, "GET", f"/resource_providers/{compute['uuid']}/aggregates", mv="1.39")
    _, _, usages = call(base, "GET", f"/resource_providers/{compute['uuid']}/allocations",
                        mv="1.39")
    consumer = next(iter(usages["allocations"]))
    _, _, owner = call(base, "GET", f"/allocations/{consumer}", mv="1.39")
    return compute["uuid"], agg["aggregates"], owner["project_id"]


def reads(base, compute, aggregates, project):
    zone = aggregates[0]
    nova = "/allocation_candidates?resources=VCPU:2,MEMORY_MB:4096,DISK_GB:40&limit=1000"
    return {
        "candidates, nova": nova,
        "candidates, required trait": nova + "&required=HW_CPU_X86_AVX2",
        "candidates, member_of": nova + f"&member_of={zone}",
        "candidates, NUMA (PCPU)": (
            "/allocation_candidates?resources=DISK_GB:40&resources_NUMA=PCPU:4,MEMORY_MB:4096"
            "&required_NUMA=HW_NUMA_ROOT&limit=1000"),
        "candidates, Ironic gold": "/allocation_candidates?resources=CUSTOM_BAREMETAL_GOLD:1"
                                   "&limit=1000",
        "providers, whole": "/resource_providers",
        "providers, filtered": f"/resource_providers?member_of={zone}&resources=VCPU:8",
        "usages of a project": f"/usages?project_id={project}",
        "a provider's allocations": f"/resource_providers/{compute}/allocations",
    }


def _size(body):
    for key in ("allocation_requests", "resource_providers", "allocations", "usages"):
        if key in body:
            return len(body[key])
    return None


def time_reads(servers, paths, requests, upstream_requests=None):
    """Median, p95 and max per read and server; a server that cannot answer
    a read at all (upstream's GET /usages is a 500 on PostgreSQL, its own
    bug) is reported with its status and left out of the timing.
    ``upstream_requests`` (fewer than ``requests``): upstream's candidates
    queries take a minute each on MariaDB at 100,000 providers; the two
    still alternate while both have requests left."""
    wanted = {"ours": requests, "upstream": upstream_requests or requests}
    results = {}
    for name, path in paths.items():
        answering, row = [], {}
        for kind in KINDS:
            _, status, body = call(servers[kind].base, "GET", path, mv="1.39", timeout=300,
                                   expect=range(200, 600))
            row[kind] = {"status": status, "size": _size(body) if status == 200 else None}
            if status == 200:
                answering.append(kind)
        latencies = {kind: [] for kind in answering}
        for index in range(max(wanted.values())):
            for kind in (answering if index % 2 == 0 else answering[::-1]):
                if index >= wanted[kind]:
                    continue
                latencies[kind].append(call(servers[kind].base, "GET", path, mv="1.39",
                                            parse=False, timeout=300)[0])
        for kind in answering:
            row[kind].update(median_ms=ms(statistics.median(latencies[kind])),
                             p95_ms=ms(percentile(latencies[kind], 95)),
                             max_ms=ms(max(latencies[kind])))
        row["ratio"] = (round(row["ours"]["median_ms"] / row["upstream"]["median_ms"], 3)
                        if len(answering) == 2 else None)
        results[name] = row
        shown = "  ".join(
            f"{kind} {row[kind]['median_ms']:8.1f} ms (p95 {row[kind]['p95_ms']:.1f})"
            if kind in answering else f"{kind} HTTP {row[kind]['status']}" for kind in KINDS)
        print(f"   {name:28} {shown}  ratio {row['ratio']}  "
              f"sizes {row['ours']['size']}/{row['upstream']['size']}", flush=True)
    return results


def _provider(base, name):
    rp = str(uuid.uuid4())
    call(base, "POST", "/resource_providers", {"name": name, "uuid": rp}, mv="1.20")
    call(base, "PUT", f"/resource_providers/{rp}/inventories", {
        "resource_provider_generation": 0,
        "inventories": {"VCPU": {"total": STORM_VCPU}, "MEMORY_MB": {"total": 65536}}})
    return rp


def claim_storm(server, clients, providers):
    """Clients claim until every provider is full; returns the figures."""
    rps = [_provider(server.base, f"storm-{server.kind}-{i}") for i in range(providers)]
    full, lock = set(), threading.Lock()
    latencies, refusals, spurious, errors = [], [0], [], []
    project, user = str(uuid.uuid4()), str(uuid.uuid4())

    def client(seed):
        rng = random.Random(seed)
        while True:
            with lock:
                open_ = [rp for rp in rps if rp not in full]
            if not open_:
                return
            rp = rng.choice(open_)
            body = {"allocations": {rp: {"resources": {"VCPU": 1, "MEMORY_MB": 64}}},
                    "project_id": project, "user_id": user, "consumer_generation": None}
            try:
                seconds, status, answer = call(server.base, "PUT", f"/allocations/{uuid.uuid4()}",
                                               body, mv="1.28", expect=(204, 409), timeout=120)
            except Exception as exc:  # noqa: BLE001 - counted and reported
                errors.append(str(exc)[:200])
                return
            with lock:
                latencies.append(seconds)
                if status == 409:
                    error = answer["errors"][0]
                    if "exceed the capacity" in error["detail"]:
                        refusals[0] += 1
                        full.add(rp)
                    else:
                        spurious.append(error.get("code"))

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        list(pool.map(client, range(clients)))
    wall = time.perf_counter() - started
    granted = 0
    for rp in rps:
        _, _, usages = call(server.base, "GET", f"/resource_providers/{rp}/usages")
        granted += usages["usages"].get("VCPU", 0)
    successes = len(latencies) - refusals[0] - len(spurious)
    return {"claims": successes, "granted_vcpu": granted, "capacity": providers * STORM_VCPU,
            "over_committed": max(0, granted - providers * STORM_VCPU),
            "lost": successes - granted, "spurious_409": len(spurious),
            "capacity_409": refusals[0], "errors": len(errors),
            "claims_per_s": round(successes / wall, 1),
            "p99_ms": ms(percentile(latencies, 99)) if latencies else None}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_scale")
    parser.add_argument("--providers", type=int, default=100_000)
    parser.add_argument("--fill", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", default="postgresql://root@127.0.0.1:5432",
                        help="server URL without a database name")
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--upstream-requests", type=int,
                        help="time upstream this many times per read (default: --requests)")
    parser.add_argument("--storm-clients", type=int, default=200)
    parser.add_argument("--storm-providers", type=int, default=50)
    parser.add_argument("--port", type=int, default=18470)
    parser.add_argument("--upstream-venv", default=DEFAULT_UPSTREAM_VENV)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--database", help="reuse (or make and keep) this loaded database")
    parser.add_argument("--only", help="time only the reads whose name holds this text")
    parser.add_argument("--skip-storm", action="store_true", help="no claim storm")
    args = parser.parse_args(argv)
    args.db = args.db.rstrip("/")
    if args.requests < 1 or (args.upstream_requests is not None and args.upstream_requests < 1):
        parser.error("--requests and --upstream-requests: 1 at least")
    ensure_upstream_venv(args.upstream_venv)
    if not args.db.startswith("postgres"):
        subprocess.run([os.path.join(args.upstream_venv, "bin", "pip"), "install", "-q",
                        "--disable-pip-version-check", "PyMySQL"], check=True, timeout=600)
    if args.database and not args.database.replace("_", "a").isalnum():
        parser.error("--database: letters, digits and _ only")
    database = args.database or f"placement_scale_{os.getpid()}"
    reuse = bool(args.database) and _exists(args.db, database)
    if not reuse:
        _admin(args.db, f"CREATE DATABASE {database}")
    figures = {"providers": args.providers, "fill": args.fill, "seed": args.seed,
               "load_average_before": os.getloadavg()}
    failed = False
    with contextlib.ExitStack() as stack:
        if not args.database:
            stack.callback(_admin, args.db, f"DROP DATABASE IF EXISTS {database}")
        servers = {kind: Server(kind, args, database, args.port + i)
                   for i, kind in enumerate(KINDS)}
        for server in servers.values():
            stack.callback(server.stop)
        if reuse:
            print(f"-- reusing the loaded database {database}", flush=True)
        else:
            print(f"-- db sync and loading {args.providers} providers ...", flush=True)
            subprocess.run([sys.executable, "-c", "import sys; from maintenance.cli import "
                            "main_manage; sys.argv = ['placement-manage', 'db', 'sync']; "
                            "main_manage()"], cwd=ROOT, env=servers["ours"].env(), check=True,
                           timeout=600, stdout=subprocess.DEVNULL)
            started = time.perf_counter()
            figures["load"] = synthetic_cloud.load(_driver_url(args.db, "ours", database),
                                                   args.providers, args.fill, args.seed)
            figures["load_s"] = round(time.perf_counter() - started, 1)
        for server in servers.values():
            server.start()
        compute, aggregates, project = _sample(servers["ours"].base)
        print("-- reads, alternating request by request:", flush=True)
        paths = reads(servers["ours"].base, compute, aggregates, project)
        if args.only:
            paths = {name: path for name, path in paths.items() if args.only in name}
        figures["reads"] = time_reads(servers, paths, args.requests, args.upstream_requests)
        failed |= any(row["ours"]["status"] != 200
                      or row["upstream"]["status"] == 200
                      and row["ours"]["size"] != row["upstream"]["size"]
                      for row in figures["reads"].values())
        figures["storm"] = {}
        for kind in () if args.skip_storm else KINDS:
            print(f"-- claim storm on {kind}: {args.storm_clients} clients, "
                  f"{args.storm_providers} providers ...", flush=True)
            storm = claim_storm(servers[kind], args.storm_clients, args.storm_providers)
            print(f"   {storm}", flush=True)
            figures["storm"][kind] = storm
        failed |= any(figures["storm"].get("ours", {}).get(key) for key in
                      ("over_committed", "lost", "spurious_409", "errors"))
        figures["worker_rss_mb"] = {kind: servers[kind].worker_rss_mb() for kind in KINDS}
        print(f"-- worker memory (MB): {figures['worker_rss_mb']}", flush=True)
    figures["load_average_after"] = os.getloadavg()
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(figures, handle, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
