"""The cost of the allocation history on a claim: PUT /allocations/{c}, history on vs off.

Runs in-process (Django test client, the whole middleware stack) against a
scratch PostgreSQL database: 50 providers with inventory, then rounds of
claims alternating history on and off so that drift in the machine's load
hits both sides alike.  Prints the median per claim and the overhead.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _psql(pg, sql):
    subprocess.run(["psql", f"{pg}/postgres", "-qAtc", sql], check=True, timeout=60,
                   stdout=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg", default=os.environ.get("BENCH_PG_URL",
                                                       "postgres://root@127.0.0.1:5432"))
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--claims", type=int, default=30, help="claims per round and side")
    args = parser.parse_args()
    db = f"placement_bench_claim_{os.getpid()}"
    _psql(args.pg, f"DROP DATABASE IF EXISTS {db}")
    _psql(args.pg, f"CREATE DATABASE {db}")
    try:
        os.environ.update(DATABASE_URL=f"{args.pg}/{db}", PLACEMENT_AUTH_STRATEGY="noauth2",
                          DJANGO_SETTINGS_MODULE="placement_site.settings")
        sys.path.insert(0, ROOT)
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command
        from django.db import connections
        from django.test import Client

        call_command("migrate", verbosity=0)
        from tests.factories import InventoryFactory, ResourceProviderFactory, resource_class

        providers = []
        for _ in range(50):
            rp = ResourceProviderFactory()
            InventoryFactory(resource_provider=rp, resource_class=resource_class("VCPU"),
                             total=100000, max_unit=100000)
            InventoryFactory(resource_provider=rp, resource_class=resource_class("MEMORY_MB"),
                             total=10**8, max_unit=10**8)
            providers.append(rp.uuid)
        client = Client()
        headers = {"HTTP_X_AUTH_TOKEN": "admin", "HTTP_OPENSTACK_API_VERSION": "placement 1.39"}

        def claim(i):
            body = {"allocations": {providers[i % len(providers)]: {
                        "resources": {"VCPU": 1, "MEMORY_MB": 512}}},
                    "project_id": "p", "user_id": "u", "consumer_generation": None,
                    "consumer_type": "INSTANCE"}
            started = time.perf_counter()
            r = client.put(f"/allocations/{uuid.uuid4()}", json.dumps(body),
                           content_type="application/json", **headers)
            elapsed = time.perf_counter() - started
            assert r.status_code == 204, r.content
            return elapsed

        for i in range(20):  # warm-up
            claim(i)
        timings = {True: [], False: []}
        for n in range(args.rounds):
            for enabled in ((True, False) if n % 2 == 0 else (False, True)):
                settings.PLACEMENT_ALLOCATION_HISTORY = enabled
                timings[enabled].extend(claim(i) for i in range(args.claims))
        on = statistics.median(timings[True]) * 1000
        off = statistics.median(timings[False]) * 1000
        report = {"claims_per_side": len(timings[True]), "history_on_median_ms": round(on, 2),
                  "history_off_median_ms": round(off, 2),
                  "overhead_percent": round((on - off) / off * 100, 1)}
        print(f"== claim (PUT /allocations/{{c}}, 1.39): history on {report['history_on_median_ms']}"
              f" ms, off {report['history_off_median_ms']} ms median over "
              f"{report['claims_per_side']} claims each: {report['overhead_percent']:+} %")
        print("BENCH-CLAIM " + json.dumps(report))
        connections.close_all()
    finally:
        _psql(args.pg, f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")


if __name__ == "__main__":
    main()
