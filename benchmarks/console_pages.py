"""`make bench`, part 2: console render times and combiner work on a populated cloud.

Console: a fresh SQLite database (a temp file), or the database of
``--database-url`` (emptied first: give it a scratch database), with 1050
providers (500 compute nodes, a NUMA child each, 50 sharing disks;
``--nodes 1430`` makes 3,003), consumers and allocations, loaded by the
console tests' bulk loader; each console page is fetched 5 times through
Django's test client as a staff user and the median is printed, with the
SQL query count.

Combiner: the 8-children x 8-granular-groups case of issue 4, timed in
process (isolate and none, capped at 1000 and uncapped), with the number of
placements the walk made.

Usage: .venv/bin/python benchmarks/console_pages.py [--nodes 500] [--repeat 5]
       [--database-url postgres://user@host:5432/scratch] [--skip-combiner]
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def console(nodes, repeat):
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from tests.console.populate import populate
    from tests.console.test_pages import thousand_provider_pages

    call_command("migrate", verbosity=0, interactive=False)
    call_command("flush", verbosity=0, interactive=False)
    call_command("migrate", verbosity=0, interactive=False)  # the catalog sync after flush
    start = time.perf_counter()
    data = populate(nodes)
    _usage_history(days=14)
    print(f"== console: {nodes * 2 + max(1, nodes // 10)} providers loaded in "
          f"{time.perf_counter() - start:.1f} s ({connection.vendor})")
    user = get_user_model().objects.create_user("bench", password="x", is_staff=True)
    client = Client()
    client.force_login(user)
    client.get("/console/login/")  # templates compiled before timing
    for url in thousand_provider_pages(data):
        times = []
        for _ in range(repeat):
            with CaptureQueriesContext(connection) as queries:
                began = time.perf_counter()
                status = client.get(url).status_code
                times.append((time.perf_counter() - began) * 1000)
            assert status == 200, (url, status)
        print(f"   {statistics.median(times):7.1f} ms  {len(queries):3d} queries  {url}")


def _usage_history(days):
    """Hourly usage snapshots over ``days`` (the Usage page's charts)."""
    from django.utils import timezone

    from allocations.models import UsageSnapshot

    now = timezone.now()
    rows = [UsageSnapshot(taken_at=now - timezone.timedelta(hours=h), resource_class=rc,
                          capacity=capacity, used=capacity // 3 + h)
            for h in range(days * 24)
            for rc, capacity in (("VCPU", 128_000), ("MEMORY_MB", 65_000_000),
                                 ("DISK_GB", 1_000_000))]
    UsageSnapshot.objects.bulk_create(rows, batch_size=1000)


def combiner():
    from candidates.combiner import Choice, Problem, combine

    print("== combiner: 8 children x 8 granular groups")
    children = list(range(1, 9))
    choices = [Choice(providers=(p,), allocs=((p, "VCPU", 1),)) for p in children]
    for label, free, isolate, cap in (
        ("isolate, cap 1000", 8, True, 1000),
        ("isolate, uncapped", 8, True, None),
        ("none, 1 free unit each, uncapped", 1, False, None),
    ):
        problem = Problem(
            capacity={(p, "VCPU"): (free, 8) for p in children},
            isolated_groups=[isolate] * 8,
            same_subtree=[],
            ancestors={p: frozenset([p, 0]) for p in children},
            root_of={p: 0 for p in children},
            sharing=frozenset(),
        )
        began = time.perf_counter()
        count = sum(1 for _ in combine([(0, [choices] * 8)], problem, cap=cap))
        elapsed = (time.perf_counter() - began) * 1000
        print(f"   {elapsed:7.1f} ms  {count:6d} results  {problem.placements:7d} placements  {label}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--database-url", default="",
                        help="a scratch database to fill (emptied first); default: temp SQLite")
    parser.add_argument("--skip-combiner", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="placement-bench-") as tmp:
        os.environ["DATABASE_URL"] = args.database_url or f"sqlite:///{tmp}/console.sqlite3"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "placement_site.settings")
        # Headroom on the overview counts two flavors, as on a real cloud.
        os.environ.setdefault("PLACEMENT_FLAVORS", "m1.small=VCPU:1,MEMORY_MB:2048; "
                                                   "m1.large=VCPU:4,MEMORY_MB:8192,DISK_GB:80")
        sys.path.insert(0, ROOT)
        import django

        django.setup()
        if not args.skip_combiner:
            combiner()
        console(args.nodes, args.repeat)


if __name__ == "__main__":
    main()
