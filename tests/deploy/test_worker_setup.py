"""The documented worker setup (``make run``: gunicorn -c
placement_site/gunicorn_hooks.py -w 2) against real slow clients: clients
that send a request's headers promising a body and never send it, and
connections that send nothing, must not keep ``GET /`` from being answered
for long; each slow client gets a 400 once PLACEMENT_CLIENT_TIMEOUT has
passed, and a chunked body a 411 (issue 28, items 10 and 11). With the sync workers used
before, four slow clients kept ``GET /`` unanswered for over 70 s
(benchmarks/slow_clients.py --sync).

The server listens on a free port, taken from PLACEMENT_TEST_PORTS
("19500-19599") when set."""
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import slow_clients  # noqa: E402

CLIENT_TIMEOUT = 6


def _free_port():
    spec = os.environ.get("PLACEMENT_TEST_PORTS")
    candidates = range(*(int(p) + i for i, p in enumerate(spec.split("-")))) if spec else [0]
    for port in candidates:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return sock.getsockname()[1]
    pytest.skip(f"no free port in {spec}")


@pytest.fixture
def server(tmp_path):
    port = _free_port()
    log = open(tmp_path / "gunicorn.log", "w")
    proc = slow_clients.start(port, ["-c", "placement_site/gunicorn_hooks.py", "-w", "2"],
                              {"PLACEMENT_CLIENT_TIMEOUT": str(CLIENT_TIMEOUT)}, log)
    try:
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _response(sock):
    data = b""
    sock.settimeout(CLIENT_TIMEOUT + 20)
    while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < _length(data):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def _length(data):
    for line in data.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return int(line.split(b":")[1])
    return 0


def test_clients_that_stall_their_body_do_not_starve_the_workers(server):
    slow, _ = slow_clients.slow_connections(server, 4, 0)
    time.sleep(0.5)
    started = time.monotonic()
    assert slow_clients.get_root(server, timeout=30) == 200
    assert time.monotonic() - started < CLIENT_TIMEOUT / 2  # not after the slow clients
    for sock in slow:
        status, body = _response(sock)
        assert status == 400
        assert b"could not be read" in body
        sock.close()
    # Each freed its thread when its read timed out, not before.
    assert CLIENT_TIMEOUT - 1 <= time.monotonic() - started < CLIENT_TIMEOUT + 15
    assert slow_clients.get_root(server, timeout=5) == 200


def test_connections_that_send_nothing_hold_no_thread_for_long(server):
    # gunicorn's threaded worker waits at most 5 s for a connection's first
    # bytes in a thread, then parks it in its main loop: twenty of them (more
    # than the two workers' 16 threads) delay GET / by a few seconds at most.
    _, idle = slow_clients.slow_connections(server, 0, 20)
    time.sleep(0.5)
    started = time.monotonic()
    assert slow_clients.get_root(server, timeout=30) == 200
    assert time.monotonic() - started < 15
    for sock in idle:
        sock.close()


def test_a_chunked_body_is_a_411(server):
    with socket.create_connection(("127.0.0.1", server), timeout=10) as sock:
        # The headers only: the answer comes before any chunk is read (a
        # body sent and left unread would make closing the socket a reset,
        # which can drop the answer on its way).
        sock.sendall(b"POST /resource_providers HTTP/1.1\r\nHost: placement\r\n"
                     b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                     b"X-Auth-Token: admin\r\nConnection: close\r\n\r\n")
        whole = b""
        while chunk := sock.recv(65536):  # Connection: close: read to the end
            whole += chunk
    head, _, answer = whole.partition(b"\r\n\r\n")
    status = int(head.split()[1])
    assert status == 411
    assert b"Content-Length" in answer
