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
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.scratch import django_on, empty_database  # noqa: E402


def console(nodes, repeat, per_node=1):
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from tests.console.populate import populate, record_failures
    from tests.console.test_pages import fetch, thousand_provider_pages

    empty_database()
    start = time.perf_counter()
    data = populate(nodes)
    if per_node > 1:
        _more_consumers(data, per_node - 1)
    _usage_history(days=14)
    _allocation_history(data, changes_per_consumer=20)
    from allocations.models import Allocation, Consumer

    print(f"== console: {nodes * 2 + max(1, nodes // 10)} providers, "
          f"{Consumer.objects.count()} consumers, {Allocation.objects.count()} allocations "
          f"loaded in {time.perf_counter() - start:.1f} s ({connection.vendor})")
    # Ten empty answers, each captured and explained on the request thread
    # (within PLACEMENT_FAILURE_EXPLAIN_PER_MINUTE), as Nova's would be.
    began = time.perf_counter()
    failure = record_failures(10)
    print(f"   {(time.perf_counter() - began) * 100:7.1f} ms  a GET /allocation_candidates "
          "without candidates, recorded and explained (mean of 10)")
    user = get_user_model().objects.create_user("bench", password="x", is_staff=True)
    client = Client()
    client.force_login(user)
    client.get("/console/login/")  # templates compiled before timing
    slowest = 0.0
    for url in ["/console/login/", *thousand_provider_pages(data, failure)]:
        times = []
        for _ in range(repeat):
            with CaptureQueriesContext(connection) as queries:
                began = time.perf_counter()
                status, _ = fetch(Client() if url == "/console/login/" else client, url)
                times.append((time.perf_counter() - began) * 1000)
            assert status == 200, (url, status)
        slowest = max(slowest, statistics.median(times))
        print(f"   {statistics.median(times):7.1f} ms  {len(queries):3d} queries  {url}")
    print(f"   slowest page: {slowest:.1f} ms")


def _more_consumers(data, count):
    """``count`` more small instances on every NUMA cell (1 VCPU, 2 GiB, and
    20 GB of the tree's sharing disk), as a busy cloud has."""
    import uuid

    from allocations.models import Allocation, Consumer
    from resource_classes.models import ResourceClass

    rc = dict(ResourceClass.objects.filter(name__in=("VCPU", "MEMORY_MB", "DISK_GB"))
              .values_list("name", "pk"))
    first = data["consumers"][0]
    consumers = [Consumer(uuid=str(uuid.uuid4()), project_id=first.project_id,
                          user_id=first.user_id, consumer_type_id=first.consumer_type_id,
                          generation=1) for _ in range(count * len(data["children"]))]
    Consumer.objects.bulk_create(consumers, batch_size=2000)
    made = list(Consumer.objects.order_by("-pk")[:len(consumers)])
    shared = data["shared"]
    rows = []
    for n, consumer in enumerate(made):
        i = n % len(data["children"])
        rows += [Allocation(consumer_id=consumer.pk, resource_provider_id=data["children"][i].pk,
                            resource_class_id=rc["VCPU"], used=1),
                 Allocation(consumer_id=consumer.pk, resource_provider_id=data["children"][i].pk,
                            resource_class_id=rc["MEMORY_MB"], used=2048),
                 Allocation(consumer_id=consumer.pk, resource_provider_id=shared[i % len(shared)].pk,
                            resource_class_id=rc["DISK_GB"], used=20)]
    Allocation.objects.bulk_create(rows, batch_size=5000)


def _allocation_history(data, changes_per_consumer):
    """Recorded allocation changes, as weeks of boots and resizes leave them."""
    from django.utils import timezone

    from operations.models import AllocationChange

    now = timezone.now()
    rows = [AllocationChange(consumer_uuid=c.uuid, provider_uuid=child.uuid,
                             resource_class="VCPU", amount_before=n, amount_after=n + 1,
                             consumer_generation=n + 1, request_id=f"req-{n}",
                             source="PUT /allocations",
                             created_at=now - timezone.timedelta(minutes=n * 30))
            for c, child in zip(data["consumers"], data["children"])
            for n in range(changes_per_consumer)]
    AllocationChange.objects.bulk_create(rows, batch_size=2000)


def _usage_history(days):
    """Hourly usage snapshots over ``days`` (the Usage page's charts)."""
    from django.utils import timezone

    from operations.models import UsageSnapshot

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
    parser.add_argument("--consumers-per-node", type=int, default=1,
                        help="instances on each NUMA cell (default 1; 10 for a busy cloud)")
    args = parser.parse_args()
    # Headroom on the overview counts two flavors, as on a real cloud.
    os.environ.setdefault("PLACEMENT_FLAVORS", "m1.small=VCPU:1,MEMORY_MB:2048; "
                                               "m1.large=VCPU:4,MEMORY_MB:8192,DISK_GB:80")
    # The console is off unless enabled (a 404 otherwise).
    with django_on(args.database_url, "console", PLACEMENT_CONSOLE="1"):
        if not args.skip_combiner:
            combiner()
        console(args.nodes, args.repeat, args.consumers_per_node)


if __name__ == "__main__":
    main()
