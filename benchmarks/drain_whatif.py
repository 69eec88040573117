"""Time the drain what-if (planning.drain) on a 1,000-host cloud.

Loads, in bulk, hosts with VCPU, MEMORY_MB and DISK_GB on the root and two
NUMA cells with PCPU each, in aggregates of 100 hosts, and consumers from
four flavors (one pinned: PCPU on a cell) filling the cloud to about
60 %, then times the drain of one host, one aggregate (100 hosts) and
10 % of the hosts picked across the cloud, in-process, through the engine
and through ``GET /planning/drain``.  Prints the median of a few runs each.

The database named by ``--db`` is dropped and created again.
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from urllib.parse import urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FLAVORS = [  # (root amounts, PCPU on one cell)
    ({"VCPU": 2, "MEMORY_MB": 4096, "DISK_GB": 40}, 0),
    ({"VCPU": 4, "MEMORY_MB": 8192, "DISK_GB": 80}, 0),
    ({"VCPU": 8, "MEMORY_MB": 16384, "DISK_GB": 160}, 0),
    ({"MEMORY_MB": 8192, "DISK_GB": 40}, 4),
]


def _recreate(url):
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = f"{parts.scheme}://{parts.netloc}/postgres"
    for sql in (f"DROP DATABASE IF EXISTS {name}", f"CREATE DATABASE {name}"):
        subprocess.run(["psql", admin, "-qAtc", sql], check=True, timeout=60,
                       stdout=subprocess.DEVNULL)


def load(hosts, fill, seed):
    from django.db.models import F

    from allocations.models import Allocation, Consumer, ConsumerType, Project, User
    from providers.models import Aggregate, Inventory, ProviderAggregate, ResourceProvider
    from resource_classes.models import ResourceClass

    rng = random.Random(seed)
    rc = {name: ResourceClass.objects.get(name=name).id
          for name in ("VCPU", "MEMORY_MB", "DISK_GB", "PCPU")}
    aggregates = Aggregate.objects.bulk_create(
        [Aggregate(uuid=str(uuid.uuid4())) for _ in range((hosts + 99) // 100)])
    roots = ResourceProvider.objects.bulk_create(
        [ResourceProvider(uuid=str(uuid.uuid4()), name=f"cn{i:05d}") for i in range(hosts)])
    ResourceProvider.objects.filter(root__isnull=True).update(root_id=F("id"))
    cells = ResourceProvider.objects.bulk_create(
        [ResourceProvider(uuid=str(uuid.uuid4()), name=f"cn{i:05d}-numa{c}", parent_id=r.id,
                          root_id=r.id)
         for i, r in enumerate(roots) for c in (0, 1)])
    inventories = []
    for r in roots:
        inventories += [
            Inventory(resource_provider_id=r.id, resource_class_id=rc["VCPU"], total=64,
                      max_unit=64, allocation_ratio=4.0),
            Inventory(resource_provider_id=r.id, resource_class_id=rc["MEMORY_MB"],
                      total=262144, reserved=4096, max_unit=262144, allocation_ratio=1.0),
            Inventory(resource_provider_id=r.id, resource_class_id=rc["DISK_GB"], total=4000,
                      max_unit=4000, allocation_ratio=1.0)]
    for cell in cells:
        inventories.append(Inventory(resource_provider_id=cell.id, resource_class_id=rc["PCPU"],
                                     total=16, max_unit=16, allocation_ratio=1.0))
    Inventory.objects.bulk_create(inventories)
    ProviderAggregate.objects.bulk_create(
        [ProviderAggregate(resource_provider_id=r.id, aggregate_id=aggregates[i // 100].id)
         for i, r in enumerate(roots)])
    project = Project.objects.create(external_id="bench")
    user = User.objects.create(external_id="bench")
    instance = ConsumerType.objects.get_or_create(name="INSTANCE")[0]
    consumers, allocations = [], []
    for i, r in enumerate(roots):
        used = {"VCPU": 0, "MEMORY_MB": 0, "PCPU": [0, 0]}
        while True:
            amounts, pcpu = rng.choice(FLAVORS)
            cell = rng.randrange(2)
            if (used["VCPU"] + amounts.get("VCPU", 0) > 256 * fill
                    or used["MEMORY_MB"] + amounts["MEMORY_MB"] > 258048 * fill
                    or used["PCPU"][cell] + pcpu > 16 * fill):
                break
            consumer = Consumer(uuid=str(uuid.uuid4()), project=project, user=user,
                                consumer_type=instance, generation=1)
            consumers.append(consumer)
            for name, n in amounts.items():
                allocations.append((consumer, r.id, rc[name], n))
                used[name] = used.get(name, 0) + n
            if pcpu:
                allocations.append((consumer, cells[2 * i + cell].id, rc["PCPU"], pcpu))
                used["PCPU"][cell] += pcpu
    Consumer.objects.bulk_create(consumers, batch_size=2000)
    Allocation.objects.bulk_create(
        [Allocation(consumer_id=c.id, resource_provider_id=rp, resource_class_id=k, used=n)
         for c, rp, k, n in allocations], batch_size=5000)
    return roots, aggregates, len(consumers), len(allocations)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=os.environ.get(
        "BENCH_DRAIN_DB", "postgres://root@127.0.0.1:5432/placement_bench_drain"),
        help="a PostgreSQL database URL (dropped and created again)")
    parser.add_argument("--hosts", type=int, default=1000)
    parser.add_argument("--fill", type=float, default=0.6)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    _recreate(args.db)
    os.environ.update(DATABASE_URL=args.db, PLACEMENT_AUTH_STRATEGY="noauth2",
                      PLACEMENT_REQUEST_LOG_LEVEL="WARNING",
                      DJANGO_SETTINGS_MODULE="placement_site.settings")
    sys.path.insert(0, ROOT)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from planning import drain

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    roots, aggregates, n_consumers, n_allocations = load(args.hosts, args.fill, args.seed)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"loaded {len(roots)} hosts ({3 * len(roots)} providers), {n_consumers} consumers, "
          f"{n_allocations} allocations in {time.perf_counter() - started:.1f} s")
    tenth = [r.name for r in roots[::10]]
    cases = [
        ("one host", {"providers": [roots[0].name]}),
        ("one aggregate (100 hosts)", {"aggregate": aggregates[0].uuid}),
        (f"10% of the hosts ({len(tenth)}, spread)", {"providers": tenth}),
    ]
    client = Client()
    print(f"{'drain':40} {'consumers':>9} {'placed':>7} {'fits':>5} "
          f"{'engine ms':>10} {'API ms':>8}")
    for label, kwargs in cases:
        engine = []
        for _ in range(args.runs):
            t = time.perf_counter()
            result = drain.drain(**kwargs)
            engine.append((time.perf_counter() - t) * 1000)
        query = "&".join([f"provider={p}" for p in kwargs.get("providers", [])]
                         + ([f"aggregate={kwargs['aggregate']}"] if "aggregate" in kwargs else []))
        api = []
        for _ in range(args.runs):
            t = time.perf_counter()
            r = client.get(f"/planning/drain?{query}", HTTP_X_AUTH_TOKEN="admin")
            api.append((time.perf_counter() - t) * 1000)
            assert r.status_code == 200, r.content[:300]
        print(f"{label:40} {result.consumers:>9} {len(result.placed):>7} "
              f"{str(result.fits):>5} {statistics.median(engine):>10.1f} "
              f"{statistics.median(api):>8.1f}")


if __name__ == "__main__":
    main()
