"""`make bench-upstream`: this service against upstream openstack-placement.

Both servers run the same way: gunicorn -w 2 on 127.0.0.1, noauth2, each on
its own fresh PostgreSQL database, logging at WARNING (the line per request
too: upstream's is on its `placement` logger, which WARNING silences, and
ours is PLACEMENT_REQUEST_LOG_LEVEL).  Upstream is installed
(not vendored) in a throwaway virtualenv outside the repository, by default
~/.cache/placement-upstream/venv-16.0.0 (openstack-placement==16.0.0 plus
gunicorn and psycopg2-binary, added when missing), configured by a
placement.conf in a temporary directory (OS_PLACEMENT_CONFIG_DIR), migrated by
`placement-manage db sync` and served from its WSGI module
placement.wsgi.api:application.

The data is loaded THROUGH THE HTTP API, identically into both servers, with
the same perfload shapes as benchmarks/bench.py:

flat    N root providers with VCPU / MEMORY_MB / DISK_GB inventory, all in one
        aggregate, HW_CPU_X86_AVX2 on every other one;
nested  N trees of 7 providers (upstream's nested-perfload shape, as in bench.py).

Per scenario both servers are up at once (each on its own database; loaded
one after the other, then both ANALYZEd), and every measurement alternates
between them (request by request for sequential timings, in --rounds
alternating blocks for the concurrent one), so background load on a shared
machine weighs on both alike:
  * GET /allocation_candidates: median and p95 of 30 sequential requests,
    requests/s for 100 requests at concurrency 10, and the number of
    allocation requests and provider summaries (must match across servers);
  * flat only: GET /resource_providers (all N providers; same timings) and
    200 sequential PUT /allocations/{new consumer} claims at microversion
    1.28 (VCPU:1, MEMORY_MB:256, DISK_GB:10, round-robin over providers).
Both servers are stopped and every database created is dropped at the end,
also on failure.  Exit status 1 when the result counts differ.

Usage: .venv/bin/python benchmarks/compare_upstream.py [--providers 300]
       [--trees 300] [--requests 30] [--concurrency 10]
       [--concurrent-requests 100] [--claims 200] [--rounds 2] [--load-threads 4]
       [--only flat|nested] [--limit 1000] [--pg postgres://root@127.0.0.1:5432]
       [--upstream-venv DIR] [--port 18460]
"""
import argparse
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
GUNICORN = os.path.join(ROOT, ".venv", "bin", "gunicorn")
UPSTREAM_VERSION = "16.0.0"
DEFAULT_UPSTREAM_VENV = os.path.expanduser(
    f"~/.cache/placement-upstream/venv-{UPSTREAM_VERSION}")
MV = "1.39"  # highest microversion of both servers (same_subtree needs 1.36)

FLAT_QUERY = (
    "/allocation_candidates?resources=VCPU:1,DISK_GB:10,MEMORY_MB:256"
    "&member_of={agg}&required=HW_CPU_X86_AVX2"
)
NESTED_QUERY = (
    "/allocation_candidates?resources=DISK_GB:10&required=COMPUTE_VOLUME_MULTI_ATTACH"
    "&resources_COMPUTE=VCPU:1,MEMORY_MB:256&required_COMPUTE=CUSTOM_FOO"
    "&resources_FPGA=FPGA:1&group_policy=none&same_subtree=_COMPUTE,_FPGA"
)


# --------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------


class HTTPFailure(Exception):
    pass


def call(base, method, path, body=None, mv=MV, expect=(200,), timeout=120, parse=True):
    """One request; returns (seconds, status, parsed JSON or None)."""
    headers = {"x-auth-token": "admin", "accept": "application/json",
               "openstack-api-version": f"placement {mv}"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["content-type"] = "application/json"
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            status = response.status
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        status = exc.code
    elapsed = time.perf_counter() - start
    if status not in expect:
        raise HTTPFailure(f"{method} {path} -> {status} (expected {expect}): {raw[:500]!r}")
    return elapsed, status, (json.loads(raw) if raw and parse else None)


def percentile(values, pct):
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, int(round(pct / 100.0 * len(ordered) + 0.5)) - 1))
    return ordered[index]


def ms(seconds):
    return round(seconds * 1000, 1)


# --------------------------------------------------------------------------
# loading through the API (same requests for both servers)
# --------------------------------------------------------------------------


def _inv(total, **kw):
    row = {"total": total, "reserved": 0, "min_unit": 1, "max_unit": total,
           "step_size": 1, "allocation_ratio": 1.0}
    row.update(kw)
    return row


def _create(base, name, parent=None):
    rp_uuid = str(uuid.uuid4())
    body = {"name": name, "uuid": rp_uuid}
    if parent:
        body["parent_provider_uuid"] = parent
    _, _, rp = call(base, "POST", "/resource_providers", body, mv="1.20")
    return rp_uuid, rp["generation"]


def _put_inventories(base, rp_uuid, generation, inventories):
    _, _, out = call(base, "PUT", f"/resource_providers/{rp_uuid}/inventories",
                     {"resource_provider_generation": generation, "inventories": inventories})
    return out["resource_provider_generation"]


def _put_traits(base, rp_uuid, generation, traits):
    _, _, out = call(base, "PUT", f"/resource_providers/{rp_uuid}/traits",
                     {"resource_provider_generation": generation, "traits": traits})
    return out["resource_provider_generation"]


def _put_aggregates(base, rp_uuid, generation, aggs):
    _, _, out = call(base, "PUT", f"/resource_providers/{rp_uuid}/aggregates",
                     {"resource_provider_generation": generation, "aggregates": aggs})
    return out["resource_provider_generation"]


def load_flat(base, count, threads, agg):
    def one(index):
        rp_uuid, gen = _create(base, f"perf-{index}")
        gen = _put_inventories(base, rp_uuid, gen, {
            "VCPU": _inv(32, allocation_ratio=16.0),
            "MEMORY_MB": _inv(131072, reserved=512, allocation_ratio=1.5),
            "DISK_GB": _inv(2048),
        })
        gen = _put_aggregates(base, rp_uuid, gen, [agg])
        if index % 2 == 0:
            _put_traits(base, rp_uuid, gen, ["HW_CPU_X86_AVX2"])
        return rp_uuid

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(one, range(count)))


def load_nested(base, count, threads):
    call(base, "PUT", "/traits/CUSTOM_FOO", expect=(201, 204))

    def one(index):
        cn, gen = _create(base, f"cn-{index}")
        gen = _put_inventories(base, cn, gen, {"DISK_GB": _inv(20480)})
        _put_traits(base, cn, gen, ["COMPUTE_VOLUME_MULTI_ATTACH"])
        numa0, gen = _create(base, f"numa0-{index}", cn)
        gen = _put_inventories(base, numa0, gen, {
            "VCPU": _inv(4, reserved=2),
            "MEMORY_MB": _inv(2048, min_unit=512, step_size=256)})
        _put_traits(base, numa0, gen, ["HW_NUMA_ROOT"])
        numa1, gen = _create(base, f"numa1-{index}", cn)
        gen = _put_inventories(base, numa1, gen, {
            "VCPU": _inv(4),
            "MEMORY_MB": _inv(2048, min_unit=256, max_unit=1024)})
        _put_traits(base, numa1, gen, ["HW_NUMA_ROOT", "CUSTOM_FOO"])
        for name, parent, rc, total in (("fpga0", numa0, "FPGA", 1),
                                        ("pgpu0", numa0, "VGPU", 8),
                                        ("fpga1_0", numa1, "FPGA", 1),
                                        ("fpga1_1", numa1, "FPGA", 1)):
            leaf, gen = _create(base, f"{name}-{index}", parent)
            _put_inventories(base, leaf, gen, {rc: _inv(total)})
        return cn

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(one, range(count)))


# --------------------------------------------------------------------------
# servers
# --------------------------------------------------------------------------


def psql(pg, sql, database="postgres"):
    env = dict(os.environ, PGOPTIONS="--client-min-messages=warning")
    subprocess.run(["psql", f"{pg}/{database}", "-qAtc", sql], check=True, timeout=300,
                   stdout=subprocess.DEVNULL, env=env)


def ensure_upstream_venv(venv):
    """Install openstack-placement (+ gunicorn, psycopg2) in a throwaway venv."""
    pip = [os.path.join(venv, "bin", "pip"), "install", "--disable-pip-version-check", "-q"]
    if not os.path.exists(os.path.join(venv, "bin", "placement-manage")):
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([shutil.which("python3") or sys.executable, "-m", "venv", venv],
                       check=True, timeout=300)
        subprocess.run(pip + [f"openstack-placement=={UPSTREAM_VERSION}"], check=True,
                       timeout=900)
    if not (os.path.exists(os.path.join(venv, "bin", "gunicorn"))
            and subprocess.run([os.path.join(venv, "bin", "python"), "-c", "import psycopg2"],
                               capture_output=True, timeout=60).returncode == 0):
        subprocess.run(pip + ["gunicorn", "psycopg2-binary"], check=True, timeout=900)


class Server:
    """A gunicorn server on loopback with its own database; a context manager."""

    def __init__(self, kind, args, db):
        self.kind, self.args, self.db = kind, args, db
        self.port = args.port + (0 if kind == "ours" else 1)
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = None
        self.tmp = None
        self.log = None

    def __enter__(self):
        args = self.args
        psql(args.pg, f"DROP DATABASE IF EXISTS {self.db} WITH (FORCE)")
        psql(args.pg, f"CREATE DATABASE {self.db}")
        try:
            self.tmp = tempfile.mkdtemp(prefix=f"cmp-{self.kind}-")
            self.log = open(os.path.join(self.tmp, "server.log"), "w")
            if self.kind == "ours":
                env = {k: v for k, v in os.environ.items()
                       if not k.startswith(("PLACEMENT_", "OS_"))
                       and k != "DJANGO_SETTINGS_MODULE"}
                env.update(DATABASE_URL=f"{args.pg}/{self.db}",
                           PLACEMENT_AUTH_STRATEGY="noauth2", PLACEMENT_LOG_LEVEL="WARNING",
                           PLACEMENT_REQUEST_LOG_LEVEL="WARNING")
                subprocess.run([PYTHON, "manage.py", "migrate", "--noinput"], cwd=ROOT,
                               env=env, check=True, timeout=300, stdout=subprocess.DEVNULL)
                argv = [GUNICORN, "placement_site.wsgi:application"]
                cwd = ROOT
            else:
                venv = args.upstream_venv
                pg = args.pg.replace("postgres://", "postgresql+psycopg2://", 1)
                conf = os.path.join(self.tmp, "placement.conf")
                with open(conf, "w") as handle:
                    handle.write(
                        "[DEFAULT]\n"
                        "debug = False\n"
                        "default_log_levels = placement=WARNING,routes=WARNING,"
                        "sqlalchemy=WARNING,oslo_db=WARNING,oslo_policy=WARNING,"
                        "keystonemiddleware=WARNING,stevedore=WARNING\n"
                        "[api]\nauth_strategy = noauth2\n"
                        f"[placement_database]\nconnection = {pg}/{self.db}\n")
                env = {k: v for k, v in os.environ.items()
                       if not k.startswith(("PLACEMENT_", "OS_", "DATABASE_URL"))}
                env["OS_PLACEMENT_CONFIG_DIR"] = self.tmp
                subprocess.run([os.path.join(venv, "bin", "placement-manage"),
                                "--config-file", conf, "db", "sync"], cwd=self.tmp, env=env,
                               check=True, timeout=300, stdout=self.log, stderr=self.log)
                argv = [os.path.join(venv, "bin", "gunicorn"), "placement.wsgi.api:application"]
                cwd = self.tmp
            self.proc = subprocess.Popen(
                argv + ["-b", f"127.0.0.1:{self.port}", "-w", str(args.workers),
                        "--timeout", "120"],
                cwd=cwd, env=env, stdout=self.log, stderr=self.log, start_new_session=True)
            self._wait_up()
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise
        return self

    def _wait_up(self, limit=90):
        deadline = time.time() + limit
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} gunicorn exited early; see {self.log.name}")
            try:
                urllib.request.urlopen(self.base + "/", timeout=2).read()
                return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"{self.kind} gunicorn did not answer in time")

    def __exit__(self, *exc):
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=15)
        self.proc = None
        if self.log is not None:
            self.log.close()
            self.log = None
        try:
            psql(self.args.pg, f"DROP DATABASE IF EXISTS {self.db} WITH (FORCE)")
        finally:
            if self.tmp and not exc[0]:
                shutil.rmtree(self.tmp, ignore_errors=True)
            elif self.tmp:
                print(f"   ({self.kind} server log kept in {self.tmp})", file=sys.stderr)
        return False


# --------------------------------------------------------------------------
# measuring
# --------------------------------------------------------------------------


KINDS = ("ours", "upstream")


def _summary(latencies):
    return {"median_ms": ms(statistics.median(latencies)),
            "p95_ms": ms(percentile(latencies, 95))}


def time_get(bases, paths, args):
    """Interleaved timing of one GET per server: {kind: (first body, figures)}.

    Sequential requests alternate between the servers (ours, upstream,
    upstream, ours, ...) and the concurrent phase runs in `args.rounds`
    alternating blocks, so background load on the shared machine weighs on
    both alike."""
    first = {kind: call(bases[kind], "GET", paths[kind])[2] for kind in KINDS}  # warm-up
    for _ in range(2):
        for kind in KINDS:
            call(bases[kind], "GET", paths[kind], parse=False)
    latencies = {kind: [] for kind in KINDS}
    for index in range(args.requests):
        for kind in (KINDS if index % 2 == 0 else KINDS[::-1]):
            latencies[kind].append(call(bases[kind], "GET", paths[kind], parse=False)[0])
    walls = {kind: 0.0 for kind in KINDS}
    per_block = max(1, args.concurrent_requests // args.rounds)
    for block in range(args.rounds):
        for kind in (KINDS if block % 2 == 0 else KINDS[::-1]):
            started = time.perf_counter()
            with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
                list(pool.map(lambda _: call(bases[kind], "GET", paths[kind], parse=False)[1],
                              range(per_block)))
            walls[kind] += time.perf_counter() - started
    return {kind: (first[kind], dict(_summary(latencies[kind]),
                                     rps=round(per_block * args.rounds / walls[kind], 1)))
            for kind in KINDS}


def time_claims(bases, providers, count):
    """`count` sequential new-consumer claims per server, interleaved."""
    project, user = str(uuid.uuid4()), str(uuid.uuid4())
    latencies = {kind: [] for kind in KINDS}
    for index in range(count):
        for kind in (KINDS if index % 2 == 0 else KINDS[::-1]):
            rp = providers[kind][index % len(providers[kind])]
            body = {"allocations": {rp: {"resources": {"VCPU": 1, "MEMORY_MB": 256,
                                                       "DISK_GB": 10}}},
                    "project_id": project, "user_id": user, "consumer_generation": None}
            latencies[kind].append(call(bases[kind], "PUT", f"/allocations/{uuid.uuid4()}",
                                        body, mv="1.28", expect=(204,))[0])
    return {kind: dict(_summary(latencies[kind]),
                       per_s=round(count / sum(latencies[kind]), 1)) for kind in KINDS}


def crowd(base, rp, count):
    """``count`` consumers holding allocations on ``rp`` (untimed); one of them."""
    project, user = str(uuid.uuid4()), str(uuid.uuid4())
    consumer = None
    for _ in range(count):
        consumer = str(uuid.uuid4())
        body = {"allocations": {rp: {"resources": {"VCPU": 1}}},
                "project_id": project, "user_id": user, "consumer_generation": None}
        call(base, "PUT", f"/allocations/{consumer}", body, mv="1.28", expect=(204,))
    return consumer


def run_scenario(name, args):
    """Both servers up at once, each on its own database; returns {kind: figures}."""
    results = {kind: {} for kind in KINDS}
    with contextlib.ExitStack() as stack:
        servers = {kind: stack.enter_context(
            Server(kind, args, f"{args.db_prefix}_{kind}_{name}_{os.getpid()}")) for kind in KINDS}
        bases = {kind: servers[kind].base for kind in KINDS}
        providers, queries = {}, {}
        for kind in KINDS:  # loading: one server after the other
            print(f"-- {name}: loading {kind} through the API ...", flush=True)
            started = time.perf_counter()
            if name == "flat":
                agg = str(uuid.uuid4())
                providers[kind] = load_flat(bases[kind], args.providers, args.load_threads, agg)
                queries[kind] = FLAT_QUERY.format(agg=agg)
            else:
                providers[kind] = load_nested(bases[kind], args.trees, args.load_threads)
                queries[kind] = NESTED_QUERY
            results[kind]["load_s"] = round(time.perf_counter() - started, 1)
        for kind in KINDS:
            # Statistics for both databases alike before any timing: no cloud
            # runs without them, and autovacuum would otherwise gather them at
            # a moment of its own, in the middle of some timings.
            psql(args.pg, "ANALYZE", database=servers[kind].db)
        print(f"-- {name}: timing GET /allocation_candidates ...", flush=True)
        for kind, (data, figures) in time_get(bases, queries, args).items():
            figures["allocation_requests"] = len(data["allocation_requests"])
            figures["provider_summaries"] = len(data["provider_summaries"])
            results[kind]["ac"] = figures
        if args.limit:
            # As Nova asks (max_placement_results): the cost should follow
            # the limit, not the cloud.
            print(f"-- {name}: timing it with limit={args.limit} ...", flush=True)
            limited = {kind: f"{queries[kind]}&limit={args.limit}" for kind in KINDS}
            for kind, (data, figures) in time_get(bases, limited, args).items():
                figures["allocation_requests"] = len(data["allocation_requests"])
                results[kind]["ac_limit"] = figures
        if name == "flat":
            print(f"-- {name}: timing GET /resource_providers and claims ...", flush=True)
            listing = {kind: "/resource_providers" for kind in KINDS}
            for kind, (data, figures) in time_get(bases, listing, args).items():
                figures["providers"] = len(data["resource_providers"])
                results[kind]["rps_list"] = figures
            for kind, figures in time_claims(bases, providers, args.claims).items():
                results[kind]["claims"] = figures
            print(f"-- {name}: timing provider and consumer allocation reads ...", flush=True)
            held = {kind: crowd(bases[kind], providers[kind][0], args.crowd) for kind in KINDS}
            paths = {kind: f"/resource_providers/{providers[kind][0]}/allocations"
                     for kind in KINDS}
            for kind, (data, figures) in time_get(bases, paths, args).items():
                figures["consumers"] = len(data["allocations"])
                results[kind]["rp_allocs"] = figures
            paths = {kind: f"/allocations/{held[kind]}" for kind in KINDS}
            for kind, (data, figures) in time_get(bases, paths, args).items():
                figures["providers"] = len(data["allocations"])
                results[kind]["consumer_allocs"] = figures
    return results


def print_table(name, args, ours, upstream):
    rows = []

    def row(label, key_path, better="lower"):
        a, b = ours, upstream
        for key in key_path:
            a, b = a[key], b[key]
        if better == "same":
            ratio = "same" if a == b else "DIFFERENT"
        elif not a or not b:
            ratio = "-"
        elif better == "lower":
            ratio = f"{b / a:.2f}x"
        else:
            ratio = f"{a / b:.2f}x"
        rows.append((label, a, b, ratio))

    size = args.providers if name == "flat" else f"{args.trees} trees x 7"
    row(f"API load of {size} providers (s)", ["load_s"])
    row("allocation_candidates median (ms)", ["ac", "median_ms"])
    row("allocation_candidates p95 (ms)", ["ac", "p95_ms"])
    row(f"allocation_candidates req/s (c={args.concurrency})", ["ac", "rps"], "higher")
    row("  allocation_requests returned", ["ac", "allocation_requests"], "same")
    row("  provider_summaries returned", ["ac", "provider_summaries"], "same")
    if args.limit:
        row(f"allocation_candidates limit={args.limit} median (ms)", ["ac_limit", "median_ms"])
        row(f"allocation_candidates limit={args.limit} p95 (ms)", ["ac_limit", "p95_ms"])
        row(f"allocation_candidates limit={args.limit} req/s (c={args.concurrency})",
            ["ac_limit", "rps"], "higher")
        row("  allocation_requests returned", ["ac_limit", "allocation_requests"], "same")
    if name == "flat":
        row("GET /resource_providers median (ms)", ["rps_list", "median_ms"])
        row("GET /resource_providers p95 (ms)", ["rps_list", "p95_ms"])
        row(f"GET /resource_providers req/s (c={args.concurrency})", ["rps_list", "rps"],
            "higher")
        row("  resource_providers returned", ["rps_list", "providers"], "same")
        row(f"PUT /allocations x{args.claims} median (ms)", ["claims", "median_ms"])
        row(f"PUT /allocations x{args.claims} p95 (ms)", ["claims", "p95_ms"])
        row("PUT /allocations claims/s (1 / mean latency)", ["claims", "per_s"], "higher")
        row(f"GET /resource_providers/{{rp}}/allocations median (ms)", ["rp_allocs", "median_ms"])
        row(f"GET /resource_providers/{{rp}}/allocations req/s (c={args.concurrency})",
            ["rp_allocs", "rps"], "higher")
        row("  consumers returned", ["rp_allocs", "consumers"], "same")
        row("GET /allocations/{consumer} median (ms)", ["consumer_allocs", "median_ms"])
        row(f"GET /allocations/{{consumer}} req/s (c={args.concurrency})",
            ["consumer_allocs", "rps"], "higher")
    width = max(len(r[0]) for r in rows)
    print(f"\n== {name}  (ratio = how many times faster this service is; "
          f"'same' = identical counts)")
    print(f"{'':{width}}  {'this service':>13}  {'upstream ' + UPSTREAM_VERSION:>16}  "
          f"{'ratio':>9}")
    for label, a, b, ratio in rows:
        print(f"{label:{width}}  {a!s:>13}  {b!s:>16}  {ratio:>9}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--providers", type=int, default=300)
    parser.add_argument("--trees", type=int, default=300)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--concurrent-requests", type=int, default=100)
    parser.add_argument("--claims", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2,
                        help="alternating blocks the concurrent requests are split into")
    parser.add_argument("--load-threads", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", choices=["flat", "nested"])
    parser.add_argument("--limit", type=int, default=0,
                        help="also time the candidates query with &limit=N (e.g. 1000)")
    parser.add_argument("--pg", default=os.environ.get("BENCH_PG_URL",
                                                       "postgres://root@127.0.0.1:5432"))
    parser.add_argument("--upstream-venv", default=os.environ.get("UPSTREAM_VENV",
                                                                  DEFAULT_UPSTREAM_VENV))
    parser.add_argument("--crowd", type=int, default=60,
                        help="consumers put on one provider before its allocations are read")
    parser.add_argument("--db-prefix", default=os.environ.get("BENCH_DB_PREFIX", "placement_cmp"),
                        help="database names start with this")
    parser.add_argument("--port", type=int, default=18460,
                        help="this service on PORT, upstream on PORT+1")
    args = parser.parse_args()
    ensure_upstream_venv(args.upstream_venv)
    print(f"load average before: {os.getloadavg()}", flush=True)
    results = {}
    for name in ("flat", "nested"):
        if args.only not in (None, name):
            continue
        for kind, figures in run_scenario(name, args).items():
            results[(name, kind)] = figures
    print(f"load average after: {os.getloadavg()}")
    mismatch = False
    for name in ("flat", "nested"):
        if (name, "ours") in results:
            ours, upstream = results[(name, "ours")], results[(name, "upstream")]
            print_table(name, args, ours, upstream)
            for key in ("allocation_requests", "provider_summaries"):
                mismatch |= ours["ac"][key] != upstream["ac"][key]
            if args.limit:
                mismatch |= (ours["ac_limit"]["allocation_requests"]
                             != upstream["ac_limit"]["allocation_requests"])
            if name == "flat":
                mismatch |= ours["rps_list"]["providers"] != upstream["rps_list"]["providers"]
    print("COMPARE " + json.dumps({f"{n}/{k}": v for (n, k), v in results.items()}))
    if mismatch:
        print("MISMATCH: the two servers returned different result counts", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
