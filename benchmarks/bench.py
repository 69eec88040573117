"""`make bench`: perfload-style timing of GET /allocation_candidates.

Two scenarios, each on its own fresh PostgreSQL database, served by gunicorn
on 127.0.0.1 with noauth2:

flat    1000 root providers, each with VCPU, MEMORY_MB and DISK_GB inventory,
        all in one aggregate, with HW_CPU_X86_AVX2 on every other provider
        (the shape of upstream's perfload job); query
        resources=VCPU:1,DISK_GB:10,MEMORY_MB:256&member_of=<agg>&required=HW_CPU_X86_AVX2
nested  1000 trees of 7 providers in the shape of upstream's gate/gabbits/nested-perfload.yaml
        (compute node with DISK_GB and COMPUTE_VOLUME_MULTI_ATTACH, two NUMA
        cells, FPGAs and a VGPU); query with granular groups and same_subtree.
empty   the flat cloud asked for more VCPU than any provider's max_unit: no
        candidates, so every answer is a scheduling failure planning.failures
        records. Three runs: capture off (PLACEMENT_FAILURE_CAPTURE=false), on
        with no explanations (PLACEMENT_FAILURE_EXPLAIN_PER_MINUTE=0: a counter
        and one INSERT per answer), and on with the default 10 explanations a
        minute per worker (the first answers of each minute are explained).
        Then the flat scenario with capture on and off: the success path does
        nothing extra, so the two should match.

Data is loaded with bulk inserts through the ORM (fast), not the API.
For each scenario: median and p95 latency over N sequential requests, then
requests/s at concurrency C; the time spent inside the database (the
server's X-Placement-DB-Time, a sum of statement times) against the total;
and the gunicorn workers' resident memory after warm-up and after every
request, with its high-water mark.  Everything is bounded by timeouts; the
databases are dropped and the server stopped at the end.

Usage: .venv/bin/python benchmarks/bench.py [--providers 1000] [--trees 1000]
       [--requests 30] [--concurrency 10] [--concurrent-requests 100]
       [--pg postgres://root@127.0.0.1:5432 | mysql://root@127.0.0.1:3306] [--port 18390] [--workers 2]
       [--only flat|nested|empty] [--limit 1000] [--curve 1000,10000,50000]
       [--database NAME]

--database runs every scenario in that one database (dropped and created
again each time) instead of one named after the scenario.

--curve runs the flat scenario once per cloud size (with --limit, as Nova
asks) and prints how the median grows with the cloud, and the slope.
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
GUNICORN = os.path.join(ROOT, ".venv", "bin", "gunicorn")

FLAT_QUERY = (
    "/allocation_candidates?resources=VCPU:1,DISK_GB:10,MEMORY_MB:256"
    "&member_of={agg}&required=HW_CPU_X86_AVX2"
)
# No provider's VCPU max_unit reaches 100000: no candidates.
EMPTY_QUERY = (
    "/allocation_candidates?resources=VCPU:100000,DISK_GB:10,MEMORY_MB:256"
    "&member_of={agg}&required=HW_CPU_X86_AVX2"
)
NESTED_QUERY = (
    "/allocation_candidates?resources=DISK_GB:10&required=COMPUTE_VOLUME_MULTI_ATTACH"
    "&resources_COMPUTE=VCPU:1,MEMORY_MB:256&required_COMPUTE=CUSTOM_FOO"
    "&resources_FPGA=FPGA:1&group_policy=none&same_subtree=_COMPUTE,_FPGA"
)


# --------------------------------------------------------------------------
# loading (runs in a child process with DATABASE_URL set)
# --------------------------------------------------------------------------


def _django():
    sys.path.insert(0, ROOT)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "placement_site.settings")
    import django

    django.setup()


def _providers(rows):
    """Bulk-create providers: rows of (name, parent ResourceProvider or None)."""
    from providers.models import ResourceProvider

    objs = [
        ResourceProvider(uuid=str(uuid.uuid4()), name=name, parent=parent,
                         root_id=parent.root_id if parent else None)
        for name, parent in rows
    ]
    ResourceProvider.objects.bulk_create(objs, batch_size=2000)
    roots = [o for o in objs if o.parent is None]
    ResourceProvider.objects.filter(pk__in=[o.pk for o in roots]).update(
        root_id=__import__("django.db.models", fromlist=["F"]).F("id")
    )
    for o in roots:
        o.root_id = o.pk
    return objs


def load_flat(count):
    _django()
    from django.db import transaction

    from providers.models import Aggregate, Inventory, ProviderAggregate, ProviderTrait
    from resource_classes.models import ResourceClass, Trait

    rc = {r.name: r for r in ResourceClass.objects.filter(name__in=["VCPU", "MEMORY_MB", "DISK_GB"])}
    avx2 = Trait.objects.get(name="HW_CPU_X86_AVX2")
    with transaction.atomic():
        agg = Aggregate.objects.create(uuid=str(uuid.uuid4()))
        rps = _providers([(f"perf-{i}", None) for i in range(count)])
        inv = []
        for rp in rps:
            inv += [
                Inventory(resource_provider=rp, resource_class=rc["VCPU"], total=32,
                          max_unit=32, allocation_ratio=16.0),
                Inventory(resource_provider=rp, resource_class=rc["MEMORY_MB"], total=131072,
                          reserved=512, max_unit=131072, allocation_ratio=1.5),
                Inventory(resource_provider=rp, resource_class=rc["DISK_GB"], total=2048,
                          max_unit=2048),
            ]
        Inventory.objects.bulk_create(inv, batch_size=5000)
        ProviderAggregate.objects.bulk_create(
            [ProviderAggregate(resource_provider=rp, aggregate=agg) for rp in rps], batch_size=5000
        )
        ProviderTrait.objects.bulk_create(
            [ProviderTrait(resource_provider=rp, trait=avx2) for rp in rps[::2]], batch_size=5000
        )
    print(json.dumps({"agg": agg.uuid}))


def load_nested(count):
    _django()
    from django.db import transaction

    from providers.models import Inventory, ProviderTrait
    from resource_classes.models import ResourceClass, Trait

    names = ["VCPU", "MEMORY_MB", "DISK_GB", "FPGA", "VGPU"]
    rc = {r.name: r for r in ResourceClass.objects.filter(name__in=names)}
    foo, _ = Trait.objects.get_or_create(name="CUSTOM_FOO")
    multi = Trait.objects.get(name="COMPUTE_VOLUME_MULTI_ATTACH")
    numa_root = Trait.objects.get(name="HW_NUMA_ROOT")

    def inv(rp, name, total, **kw):
        kw.setdefault("max_unit", total)
        return Inventory(resource_provider=rp, resource_class=rc[name], total=total, **kw)

    with transaction.atomic():
        cns = _providers([(f"cn-{i}", None) for i in range(count)])
        numas = _providers(
            [(f"numa{n}-{i}", cn) for i, cn in enumerate(cns) for n in (0, 1)]
        )
        leaves = _providers(
            [(f"dev{d}-{i}", numa) for i, numa in enumerate(numas) for d in (0, 1)]
        )
        inventory, traits = [], []
        for cn in cns:
            inventory.append(inv(cn, "DISK_GB", 20480))
            traits.append(ProviderTrait(resource_provider=cn, trait=multi))
        for index, numa in enumerate(numas):
            if index % 2 == 0:  # numa0
                inventory += [inv(numa, "VCPU", 4, reserved=2),
                              inv(numa, "MEMORY_MB", 2048, min_unit=512, step_size=256)]
                traits.append(ProviderTrait(resource_provider=numa, trait=numa_root))
            else:  # numa1
                inventory += [inv(numa, "VCPU", 4),
                              inv(numa, "MEMORY_MB", 2048, min_unit=256, max_unit=1024)]
                traits += [ProviderTrait(resource_provider=numa, trait=numa_root),
                           ProviderTrait(resource_provider=numa, trait=foo)]
        for index, leaf in enumerate(leaves):
            numa_index, device = divmod(index, 2)
            if numa_index % 2 == 0 and device == 1:
                inventory.append(inv(leaf, "VGPU", 8))  # pgpu0_0
            else:
                inventory.append(inv(leaf, "FPGA", 1))  # fpga0_0, fpga1_0, fpga1_1
        Inventory.objects.bulk_create(inventory, batch_size=5000)
        ProviderTrait.objects.bulk_create(traits, batch_size=5000)
    print(json.dumps({}))


# --------------------------------------------------------------------------
# driving (main process)
# --------------------------------------------------------------------------


def _psql(pg, sql, database="postgres"):  # database: PostgreSQL only
    """Run one administrative statement on the server (PostgreSQL or MariaDB/MySQL)."""
    if pg.startswith("mysql"):
        from urllib.parse import urlsplit

        import pymysql

        parts = urlsplit(pg)
        conn = pymysql.connect(host=parts.hostname or "127.0.0.1", port=parts.port or 3306,
                               user=parts.username or "root", password=parts.password or "",
                               autocommit=True)
        try:
            with conn.cursor() as cursor:
                cursor.execute(sql.replace(" WITH (FORCE)", ""))
        finally:
            conn.close()
        return
    subprocess.run(["psql", f"{pg}/{database}", "-qAtc", sql], check=True, timeout=300,
                   stdout=subprocess.DEVNULL)


def _env(database_url, extra=None):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PLACEMENT_", "OS_")) and k != "DJANGO_SETTINGS_MODULE"}
    env.update(DATABASE_URL=database_url, PLACEMENT_AUTH_STRATEGY="noauth2",
               PLACEMENT_LOG_LEVEL="WARNING", PLACEMENT_REQUEST_LOG_LEVEL="WARNING",
               # Each answer says its database time (placement_core/dbtiming.py).
               PLACEMENT_TIMING_HEADERS="1")
    env.update(extra or {})
    return env


def _get(url, timeout=60):
    request = urllib.request.Request(url, headers={
        "x-auth-token": "admin", "openstack-api-version": "placement latest",
        "accept": "application/json"})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=timeout) as response:
        body = response.read()
        status = response.status
    return time.perf_counter() - start, status, body


def _timed(url, timeout=60):
    """(seconds for the whole request, seconds inside the database, statements)."""
    request = urllib.request.Request(url, headers={
        "x-auth-token": "admin", "openstack-api-version": "placement latest",
        "accept": "application/json"})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=timeout) as response:
        response.read()
        db_ms = float(response.headers.get("X-Placement-DB-Time", "nan"))
        queries = int(response.headers.get("X-Placement-DB-Queries", "0"))
    return time.perf_counter() - start, db_ms / 1000, queries


def _workers_memory(master_pid):
    """Per gunicorn worker: (resident MB now, high-water MB), from /proc."""
    found = []
    try:
        with open(f"/proc/{master_pid}/task/{master_pid}/children") as handle:
            children = [int(p) for p in handle.read().split()]
    except OSError:
        return found
    for pid in children:
        fields = {}
        try:
            with open(f"/proc/{pid}/status") as handle:
                for line in handle:
                    key, _, value = line.partition(":")
                    fields[key] = value.strip()
        except OSError:
            continue
        rss = int(fields.get("VmRSS", "0 kB").split()[0]) / 1024
        hwm = int(fields.get("VmHWM", "0 kB").split()[0]) / 1024
        found.append((round(rss, 1), round(hwm, 1)))
    return found


def _wait_up(base, proc, limit=60):
    deadline = time.time() + limit
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("gunicorn exited early")
        try:
            urllib.request.urlopen(base + "/", timeout=2).read()
            return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("gunicorn did not answer in time")


def _percentile(values, pct):
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, int(round(pct / 100.0 * len(ordered) + 0.5)) - 1))
    return ordered[index]


def run_scenario(name, args, load_args, query_template, extra_env=None):
    db = args.database or f"placement_bench_{name}_{os.getpid()}"
    url = f"{args.pg}/{db}"
    env = _env(url, extra_env)
    _psql(args.pg, f"DROP DATABASE IF EXISTS {db}")
    _psql(args.pg, f"CREATE DATABASE {db}" + (
        " CHARACTER SET utf8mb4" if args.pg.startswith("mysql") else ""))
    proc = None
    try:
        subprocess.run([PYTHON, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env,
                       check=True, timeout=300, stdout=subprocess.DEVNULL)
        started = time.perf_counter()
        out = subprocess.run([PYTHON, __file__, *load_args], cwd=ROOT, env=env, check=True,
                             timeout=600, capture_output=True, text=True).stdout
        load_time = time.perf_counter() - started
        if not args.pg.startswith("mysql"):
            # Statistics, as a running cloud has them; without, autovacuum
            # gathers them at a moment of its own, in the middle of some
            # timings. (InnoDB recomputes its own once a tenth of a table changed.)
            _psql(args.pg, "ANALYZE", database=db)
        info = json.loads(out.strip().splitlines()[-1])
        query = query_template.format(**info)
        base = f"http://127.0.0.1:{args.port}"
        proc = subprocess.Popen(
            [GUNICORN, "placement_site.wsgi:application", "-b", f"127.0.0.1:{args.port}",
             "-w", str(args.workers), "--timeout", "120"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        _wait_up(base, proc)
        _, status, body = _get(base + query)  # warm-up (and correctness peek)
        assert status == 200, status
        data = json.loads(body)
        candidates = len(data["allocation_requests"])
        summaries = len(data["provider_summaries"])
        for _ in range(2):
            _get(base + query)
        warm_memory = _workers_memory(proc.pid)
        timed = [_timed(base + query) for _ in range(args.requests)]
        latencies = [t for t, _, _ in timed]
        db_times = [d for _, d, _ in timed]
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
            results = list(pool.map(lambda _: _get(base + query)[1],
                                    range(args.concurrent_requests)))
        wall = time.perf_counter() - started
        assert all(s == 200 for s in results)
        # Again after as many requests once more: memory that keeps growing
        # with repeated requests would show as a second step up.
        for _ in range(args.requests):
            _get(base + query)
        end_memory = _workers_memory(proc.pid)
        return {
            "scenario": name,
            "query": query,
            "load_seconds": round(load_time, 1),
            "allocation_requests": candidates,
            "provider_summaries": summaries,
            "requests": args.requests,
            "median_ms": round(statistics.median(latencies) * 1000, 1),
            "p95_ms": round(_percentile(latencies, 95) * 1000, 1),
            "concurrency": args.concurrency,
            "concurrent_requests": args.concurrent_requests,
            "requests_per_second": round(args.concurrent_requests / wall, 1),
            "gunicorn_workers": args.workers,
            "db_median_ms": round(statistics.median(db_times) * 1000, 1),
            "db_share": round(sum(db_times) / sum(latencies), 2),
            "statements": timed[-1][2],
            "worker_rss_mb_after_warmup": max((m[0] for m in warm_memory), default=None),
            # A worker's peak inside one request: the resident size after a
            # request lies below it, and it is what the workers need.
            "worker_high_water_mb_after_warmup": max((m[1] for m in warm_memory), default=None),
            "worker_rss_mb_at_end": max((m[0] for m in end_memory), default=None),
            "worker_high_water_mb": max((m[1] for m in end_memory), default=None),
        }
    finally:
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        _psql(args.pg, f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")


def curve(args, sizes, query):
    """The flat scenario at each cloud size: how the request's time grows
    with the cloud (with a limit, it should hardly grow)."""
    rows = []
    for size in sizes:
        report = run_scenario(f"flat{size}", args, ["load-flat", str(size)], query)
        rows.append((size, report))
        print(f"-- {size} providers: median {report['median_ms']} ms "
              f"(database {report['db_median_ms']} ms), "
              f"{report['allocation_requests']} allocation requests", flush=True)
    print(f"== scaling: {query}")
    print(f"   {'providers':>9}  {'median ms':>9}  {'p95 ms':>7}  {'database ms':>11}  "
          f"{'req/s c' + str(args.concurrency):>9}")
    for size, r in rows:
        print(f"   {size:>9}  {r['median_ms']:>9}  {r['p95_ms']:>7}  {r['db_median_ms']:>11}  "
              f"{r['requests_per_second']:>9}")
    (n0, first), (n1, last) = rows[0], rows[-1]
    if n1 > n0:
        slope = (last["median_ms"] - first["median_ms"]) / (n1 - n0) * 1000
        print(f"   slope: {slope:.1f} ms per 1,000 more providers; "
              f"{n1 // n0}x the providers took {last['median_ms'] / first['median_ms']:.1f}x "
              "the time")
    print("CURVE " + json.dumps([dict(r, providers=n) for n, r in rows]))


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("load-flat", "load-nested"):
        count = int(sys.argv[2])
        (load_flat if sys.argv[1] == "load-flat" else load_nested)(count)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--providers", type=int, default=1000)
    parser.add_argument("--trees", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--concurrent-requests", type=int, default=100)
    parser.add_argument("--pg", default=os.environ.get("BENCH_PG_URL",
                                                       "postgres://root@127.0.0.1:5432"))
    parser.add_argument("--port", type=int, default=18390)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", choices=["flat", "nested", "empty"])
    parser.add_argument("--database", help="one database name for every scenario")
    parser.add_argument("--limit", type=int, default=0,
                        help="add &limit=N to the candidates queries (Nova sends 1000)")
    parser.add_argument("--curve", metavar="N,N,...",
                        help="flat only, one run per cloud size (e.g. 1000,10000,50000), "
                             "then the scaling table and its slope")
    args = parser.parse_args()
    suffix = f"&limit={args.limit}" if args.limit else ""
    if args.curve:
        curve(args, [int(n) for n in args.curve.split(",")], FLAT_QUERY + suffix)
        return
    reports = []
    if args.only in (None, "flat"):
        reports.append(run_scenario("flat", args, ["load-flat", str(args.providers)],
                                    FLAT_QUERY + suffix))
    if args.only in (None, "nested"):
        reports.append(run_scenario("nested", args, ["load-nested", str(args.trees)],
                                    NESTED_QUERY + suffix))
    if args.only in (None, "empty"):
        flat = ["load-flat", str(args.providers)]
        for name, extra in (
                ("empty-capture-off", {"PLACEMENT_FAILURE_CAPTURE": "false"}),
                ("empty-capture-no-explain", {"PLACEMENT_FAILURE_EXPLAIN_PER_MINUTE": "0"}),
                ("empty-capture-default", {})):
            reports.append(run_scenario(name, args, flat, EMPTY_QUERY + suffix, extra))
        for name, extra in (("flat-capture-on", {}),
                            ("flat-capture-off", {"PLACEMENT_FAILURE_CAPTURE": "false"})):
            reports.append(run_scenario(name, args, flat, FLAT_QUERY + suffix, extra))
    for report in reports:
        print(f"== {report['scenario']}: {report['query']}")
        print(f"   data loaded in {report['load_seconds']} s; "
              f"{report['allocation_requests']} allocation requests, "
              f"{report['provider_summaries']} provider summaries per response")
        print(f"   sequential x{report['requests']}: median {report['median_ms']} ms, "
              f"p95 {report['p95_ms']} ms")
        print(f"   concurrency {report['concurrency']} x{report['concurrent_requests']} "
              f"(gunicorn -w {report['gunicorn_workers']}): "
              f"{report['requests_per_second']} requests/s")
        total = report["median_ms"]
        print(f"   inside the database: median {report['db_median_ms']} ms of {total} ms "
              f"({report['statements']} statements; database share {report['db_share']:.0%}, "
              f"total = {1 / report['db_share']:.1f}x database time)")
        print(f"   worker memory: {report['worker_rss_mb_after_warmup']} MB after warm-up "
              f"(high-water {report['worker_high_water_mb_after_warmup']} MB), "
              f"{report['worker_rss_mb_at_end']} MB after "
              f"{2 * report['requests'] + report['concurrent_requests']} more requests "
              f"(high-water {report['worker_high_water_mb']} MB)")
    print("BENCH " + json.dumps(reports))


if __name__ == "__main__":
    main()
