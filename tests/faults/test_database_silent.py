"""A database that accepts connections and then never answers (a hung
server, a stalled network path), played by a TCP proxy that goes silent:
requests answer 503 placement.database_unavailable with Retry-After well
before gunicorn's worker timeout (30 s) would kill the worker, both on a
connection opened before the silence (the statement timeout) and on a new
one (the connect timeout); once the database answers again, so does the
server."""
import time
import uuid

import pytest
import requests

from tests.faults.conftest import (
    TCPProxy, database_url, server_target, start_gunicorn, stop, wait_up,
)

pytestmark = pytest.mark.network_database

HEADERS = {"x-auth-token": "admin", "openstack-api-version": "placement 1.39",
           "accept": "application/json"}
# gunicorn's default: the worker is killed when a request takes longer.
WORKER_TIMEOUT = 30


def _timed(method, url, **kw):
    started = time.monotonic()
    try:
        r = requests.request(method, url, headers=HEADERS, timeout=WORKER_TIMEOUT + 15, **kw)
        status, retry, body = r.status_code, r.headers.get("Retry-After"), r.text
    except requests.RequestException as exc:
        status, retry, body = None, None, repr(exc)
    return time.monotonic() - started, status, retry, body


@pytest.fixture(params=["sync", "gthread"])
def silent_server(request, transactional_db, tmp_path):
    """gunicorn -w 1 with gunicorn's default worker (sync: killed past the
    timeout) or the threaded one (whose worker is never killed: the thread
    waits for as long as the database does)."""
    proxy = TCPProxy(*server_target())
    proc, base = start_gunicorn(database_url("127.0.0.1", proxy.port), tmp_path / "gunicorn.log",
                                workers=1, timeout=WORKER_TIMEOUT, worker_class=request.param)
    try:
        wait_up(proc, base)
        yield base, proxy
    finally:
        stop(proc)
        proxy.close()


def test_silent_database_answers_503_before_the_worker_timeout(silent_server):
    base, proxy = silent_server
    rp = str(uuid.uuid4())
    r = requests.post(f"{base}/resource_providers", headers=HEADERS,
                      json={"name": f"rp-{rp}", "uuid": rp})
    assert r.status_code == 200, r.text
    # The worker's connection is open (persistent connections) when it goes quiet.
    proxy.silence()
    answers = [
        ("GET usages, first after the silence", *_timed("GET", f"{base}/resource_providers/{rp}/usages")),
        ("PUT allocation", *_timed("PUT", f"{base}/allocations/{uuid.uuid4()}", json={
            "allocations": {rp: {"resources": {"VCPU": 1}}}, "project_id": "p",
            "user_id": "u", "consumer_generation": None, "consumer_type": "INSTANCE"})),
        ("GET providers", *_timed("GET", f"{base}/resource_providers")),
    ]
    proxy.restore()
    print()
    for what, seconds, status, retry, _body in answers:
        print(f"silent database: {what}: {status} after {seconds:.2f} s (Retry-After {retry})")
    for what, seconds, status, retry, body in answers:
        assert status == 503, (what, seconds, status, body)
        assert retry == "5"
        error = requests.models.complexjson.loads(body)["errors"][0]
        assert error["code"] == "placement.database_unavailable"
        # Well before the worker timeout: at most the statement timeout
        # (10 s) and its 1 s grace, then one reconnection Django makes while
        # cleaning up a failed transaction (the connect timeout, 5 s).
        assert seconds < 20, (what, seconds)
    # The database answers again: so does the server, with the same worker.
    deadline = time.monotonic() + 20
    while True:
        r = requests.get(f"{base}/resource_providers/{rp}", headers=HEADERS, timeout=30)
        if r.status_code == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert r.status_code == 200, r.text


def test_database_silent_at_commit_answers_503(silent_server):
    """The database stops answering at the very COMMIT of a claim: the
    statement timeout covers the commit too (on PostgreSQL its client side,
    which the driver's commit does not pass through by itself)."""
    base, proxy = silent_server
    rp = str(uuid.uuid4())
    r = requests.post(f"{base}/resource_providers", headers=HEADERS,
                      json={"name": f"rp-{rp}", "uuid": rp})
    assert r.status_code == 200, r.text
    r = requests.put(f"{base}/resource_providers/{rp}/inventories", headers=HEADERS, json={
        "resource_provider_generation": 0, "inventories": {"VCPU": {"total": 8}}})
    assert r.status_code == 200, r.text
    proxy.silence_on(b"COMMIT")
    seconds, status, retry, body = _timed("PUT", f"{base}/allocations/{uuid.uuid4()}", json={
        "allocations": {rp: {"resources": {"VCPU": 1}}}, "project_id": "p",
        "user_id": "u", "consumer_generation": None, "consumer_type": "INSTANCE"})
    proxy.restore()
    print(f"\nsilent at COMMIT: {status} after {seconds:.2f} s (Retry-After {retry})")
    assert status == 503, (seconds, status, body)
    assert retry == "5"
    assert seconds < 20
