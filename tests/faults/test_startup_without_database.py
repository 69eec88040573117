"""Start-up with the database unreachable: the server says which database it
cannot reach (never the password), retries for PLACEMENT_DB_STARTUP_WAIT
seconds, and then exits non-zero; a database that appears within the wait
is used."""
import time

import pytest
import requests

from tests.faults.conftest import free_port, server_target, start_gunicorn, stop, wait_up
from tests.faults.tcpproxy import TCPProxy


def test_unreachable_database_stops_the_server_with_a_clear_message(tmp_path):
    closed = free_port()
    proc, base = start_gunicorn(f"postgres://root:sekrit@127.0.0.1:{closed}/placement",
                                tmp_path / "gunicorn.log",
                                extra_env={"PLACEMENT_DB_STARTUP_WAIT": "1"})
    try:
        rc = proc.wait(timeout=60)
    finally:
        stop(proc)
    log = (tmp_path / "gunicorn.log").read_text()
    assert rc != 0
    assert f"placement: cannot reach the database (postgresql 127.0.0.1:{closed}/placement) " \
           "after 1 s" in log
    assert "Connection refused" in log
    assert "sekrit" not in log
    assert "Traceback" not in log


def test_zero_wait_exits_at_once(tmp_path):
    proc, _ = start_gunicorn(f"postgres://root@127.0.0.1:{free_port()}/placement",
                             tmp_path / "gunicorn.log",
                             extra_env={"PLACEMENT_DB_STARTUP_WAIT": "0"})
    try:
        rc = proc.wait(timeout=60)
    finally:
        stop(proc)
    log = (tmp_path / "gunicorn.log").read_text()
    assert rc != 0
    assert "after 0 s" in log and "retrying" not in log


@pytest.mark.network_database
def test_database_that_comes_up_within_the_wait_is_used(transactional_db, tmp_path):
    from tests.faults.conftest import database_url

    proxy = TCPProxy(*server_target())
    proxy.sever()
    log_path = tmp_path / "gunicorn.log"
    proc, base = start_gunicorn(database_url("127.0.0.1", proxy.port), log_path,
                                extra_env={"PLACEMENT_DB_STARTUP_WAIT": "120"}, workers=1)
    try:
        deadline = time.monotonic() + 60
        while "retrying for" not in log_path.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.1)
        proxy.restore()
        wait_up(proc, base)
        r = requests.get(base + "/resource_providers",
                         headers={"x-auth-token": "admin", "accept": "application/json"})
        assert r.status_code == 200
        assert proc.poll() is None
    finally:
        stop(proc)
        proxy.close()
