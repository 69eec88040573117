"""Wide GPU trees: candidates with many granular groups over identical devices.

Loads ``--hosts`` compute nodes (VCPU, MEMORY_MB), each the parent of
``--devices`` device providers holding one VGPU, into a fresh SQLite
database (a temp file) or the database of ``--database-url`` (emptied
first: give it a scratch database), then times, in process through Django's
test client, ``--groups`` granular groups of VGPU:1 with
``group_policy=isolate`` and ``limit=1000`` -- with and without an
unsuffixed VCPU/MEMORY_MB group -- and prints the median and slowest of
``--repeat`` requests with the number of candidates returned. Without a
limit such a request is refused (400 ``placement.query.too_much_work``):
16 devices taken 8 at a time in order are 500 million placements a host.

Usage: .venv/bin/python benchmarks/wide_trees.py [--hosts 500] [--devices 16]
       [--groups 8] [--repeat 9] [--database-url postgres://root@127.0.0.1:5432/scratch]
"""
import argparse
import os
import statistics
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.scratch import django_on, empty_database  # noqa: E402


def load(hosts, devices):
    from django.db import transaction
    from django.db.models import F

    from providers.models import Inventory, ResourceProvider
    from resource_classes.models import ResourceClass

    empty_database()
    classes = {c.name: c for c in ResourceClass.objects.filter(
        name__in=["VCPU", "MEMORY_MB", "VGPU"])}
    with transaction.atomic():
        roots = [ResourceProvider(uuid=str(uuid.uuid4()), name=f"gpu-host-{i}")
                 for i in range(hosts)]
        ResourceProvider.objects.bulk_create(roots, batch_size=2000)
        ResourceProvider.objects.filter(pk__in=[r.pk for r in roots]).update(root_id=F("id"))
        cards = [ResourceProvider(uuid=str(uuid.uuid4()), name=f"gpu-host-{i}-dev-{d}",
                                  parent=root, root_id=root.pk)
                 for i, root in enumerate(roots) for d in range(devices)]
        ResourceProvider.objects.bulk_create(cards, batch_size=2000)
        rows = [Inventory(resource_provider=r, resource_class=classes["VCPU"],
                          total=64, max_unit=64) for r in roots]
        rows += [Inventory(resource_provider=r, resource_class=classes["MEMORY_MB"],
                           total=262144, max_unit=262144) for r in roots]
        rows += [Inventory(resource_provider=c, resource_class=classes["VGPU"],
                           total=1, max_unit=1) for c in cards]
        Inventory.objects.bulk_create(rows, batch_size=5000)


def time_queries(groups, repeat):
    from django.test import Client

    client = Client()
    headers = {"HTTP_X_AUTH_TOKEN": "admin", "HTTP_OPENSTACK_API_VERSION": "placement 1.39"}
    granular = "&".join(f"resources{g}=VGPU:1" for g in range(1, groups + 1))
    for label, query in (
        ("a host's VCPU and memory, and the devices", f"resources=VCPU:8,MEMORY_MB:16384&{granular}"),
        ("the devices alone", granular),
    ):
        url = f"/allocation_candidates?{query}&group_policy=isolate&limit=1000"
        first = client.get(url, **headers)
        found = (len(first.json()["allocation_requests"]) if first.status_code == 200
                 else f"HTTP {first.status_code}")
        times = []
        for _ in range(repeat):
            began = time.perf_counter()
            client.get(url, **headers)
            times.append((time.perf_counter() - began) * 1000)
        print(f"   {statistics.median(times):7.1f} ms median, {max(times):7.1f} ms slowest, "
              f"{found} candidates: {label}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=500)
    parser.add_argument("--devices", type=int, default=16)
    parser.add_argument("--groups", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--database-url", default="",
                        help="a scratch database to fill (emptied first); default: temp SQLite")
    args = parser.parse_args()
    os.environ.setdefault("PLACEMENT_LOG_LEVEL", "WARNING")
    with django_on(args.database_url, "wide"):
        began = time.perf_counter()
        load(args.hosts, args.devices)
        print(f"== wide trees: {args.hosts} hosts x {args.devices} devices loaded in "
              f"{time.perf_counter() - began:.1f} s; {args.groups} granular groups of "
              "VGPU:1, group_policy=isolate, limit=1000")
        time_queries(args.groups, args.repeat)


if __name__ == "__main__":
    main()
