"""The time of PUT /resource_providers/{uuid}/aggregates against the size of the list.

Runs in-process (Django test client, the whole middleware stack) against a
scratch PostgreSQL database. For each size N: a fresh provider, then one
PUT (1.19) naming N aggregate uuids none of which exists yet, then one PUT
of the same N again (nothing to change), then one that keeps half and adds
N/2 new ones. Prints seconds per PUT. The bound on the list
(``[placement] max_aggregates_per_request``) is raised to the largest size
for the run.

    .venv/bin/python benchmarks/aggregates_put.py --sizes 1000,10000,50000
"""
import argparse
import json
import os
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
    parser.add_argument("--db", default=f"placement_bench_aggregates_{os.getpid()}",
                        help="scratch database name (dropped and created)")
    parser.add_argument("--sizes", default="1000,10000,50000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    _psql(args.pg, f"DROP DATABASE IF EXISTS {args.db}")
    _psql(args.pg, f"CREATE DATABASE {args.db}")
    try:
        os.environ.update(DATABASE_URL=f"{args.pg}/{args.db}", PLACEMENT_AUTH_STRATEGY="noauth2",
                          DJANGO_SETTINGS_MODULE="placement_site.settings",
                          PLACEMENT_REQUEST_LOG_LEVEL="WARNING")
        sys.path.insert(0, ROOT)
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command
        from django.test import Client

        call_command("migrate", verbosity=0)
        settings.PLACEMENT_MAX_AGGREGATES_PER_REQUEST = max(sizes)
        client = Client()
        headers = {"HTTP_X_AUTH_TOKEN": "admin", "HTTP_OPENSTACK_API_VERSION": "placement 1.19"}

        def put(rp, generation, aggregates):
            body = json.dumps({"aggregates": aggregates,
                               "resource_provider_generation": generation})
            started = time.perf_counter()
            response = client.put(f"/resource_providers/{rp}/aggregates", body,
                                  content_type="application/json", **headers)
            elapsed = time.perf_counter() - started
            assert response.status_code == 200, response.content[:300]
            return elapsed, response.json()["resource_provider_generation"]

        print(f"{'aggregates':>10} {'all new s':>10} {'same again s':>13} {'half new s':>11}")
        for n in sizes:
            created = client.post("/resource_providers", json.dumps({"name": f"rp-{n}"}),
                                  content_type="application/json",
                                  **{**headers, "HTTP_OPENSTACK_API_VERSION": "placement 1.20"}
                                  ).json()
            rp = created["uuid"]
            aggregates = [str(uuid.uuid4()) for _ in range(n)]
            first, gen = put(rp, created["generation"], aggregates)
            again, gen = put(rp, gen, aggregates)
            half = aggregates[: n // 2] + [str(uuid.uuid4()) for _ in range(n - n // 2)]
            mixed, gen = put(rp, gen, half)
            print(f"{n:>10} {first:>10.2f} {again:>13.2f} {mixed:>11.2f}", flush=True)
    finally:
        if "django" in sys.modules:
            from django.db import connections
            connections.close_all()
        _psql(args.pg, f"DROP DATABASE IF EXISTS {args.db}")


if __name__ == "__main__":
    main()
