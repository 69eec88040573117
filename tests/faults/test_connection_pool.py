"""[placement_database] max_pool_size / max_overflow on PostgreSQL: a
gunicorn worker with four threads under eight concurrent clients opens at
most max_pool_size + max_overflow connections to the database (Django's
psycopg pool), where without a pool each thread holds its own."""
import threading
import time

import pytest
import requests

from tests.faults.conftest import (
    TCPProxy, database_url, server_target, start_gunicorn, stop, wait_up,
)

pytestmark = [pytest.mark.network_database, pytest.mark.postgres_only]

HEADERS = {"x-auth-token": "admin", "openstack-api-version": "placement 1.39"}


def _connections_under_load(tmp_path, extra_env):
    proxy = TCPProxy(*server_target())
    proc, base = start_gunicorn(database_url("127.0.0.1", proxy.port), tmp_path / "gunicorn.log",
                                workers=1, extra_env=extra_env)
    statuses = []
    try:
        wait_up(proc, base)

        def client():
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:
                statuses.append(requests.get(f"{base}/resource_providers?name=x",
                                             headers=HEADERS, timeout=30).status_code)

        threads = [threading.Thread(target=client) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return proxy.connections, statuses
    finally:
        stop(proc)
        proxy.close()


def test_pool_bounds_the_connections(transactional_db, tmp_path):
    opened, statuses = _connections_under_load(tmp_path, {
        "OS_PLACEMENT_DATABASE__MAX_POOL_SIZE": "1",
        "OS_PLACEMENT_DATABASE__MAX_OVERFLOW": "1"})
    assert statuses and set(statuses) == {200}
    print(f"\npool 1+1: {opened} connections for {len(statuses)} requests")
    assert opened <= 2
    opened, statuses = _connections_under_load(tmp_path, {})
    assert statuses and set(statuses) == {200}
    print(f"no pool: {opened} connections for {len(statuses)} requests")
    assert opened > 2
