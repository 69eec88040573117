"""A gunicorn that reaches the test database through a TCP proxy the test can cut."""
import os
import subprocess
import time
from pathlib import Path

import pytest
import requests
from django.db import connection

from tests.faults.tcpproxy import TCPProxy

PROJECT_DIR = Path(__file__).resolve().parents[2]
GUNICORN = PROJECT_DIR / ".venv" / "bin" / "gunicorn"


def database_url(host, port):
    s = connection.settings_dict
    user = s.get("USER") or ""
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    auth = f"{user}{password}@" if user else ""
    scheme = "mysql" if connection.vendor == "mysql" else "postgres"
    return f"{scheme}://{auth}{host}:{port}/{s['NAME']}"


def server_target():
    s = connection.settings_dict
    default = 3306 if connection.vendor == "mysql" else 5432
    return s.get("HOST") or "127.0.0.1", int(s.get("PORT") or default)


def free_port():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_gunicorn(db_url, log_path, *, extra_env=None, workers=2, timeout=60, worker_class="gthread"):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLACEMENT_")}
    env.update({"DATABASE_URL": db_url, "PLACEMENT_AUTH_STRATEGY": "noauth2",
                "PLACEMENT_LOG_LEVEL": "WARNING"})
    env.update(extra_env or {})
    port = free_port()
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [str(GUNICORN), "placement_site.wsgi:application", "-b", f"127.0.0.1:{port}",
         "-w", str(workers), "-k", worker_class, "--timeout", str(timeout)]
        + (["--threads", "4"] if worker_class == "gthread" else []),
        cwd=PROJECT_DIR, env=env, stdout=log, stderr=subprocess.STDOUT)
    proc.log = log
    return proc, f"http://127.0.0.1:{port}"


def wait_up(proc, base, limit=60):
    deadline = time.time() + limit
    while True:
        try:
            requests.get(base + "/", timeout=2)
            return
        except requests.RequestException:
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"gunicorn did not start; see {proc.log.name}")
            time.sleep(0.2)


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    proc.log.close()


@pytest.fixture
def proxied_server(transactional_db, tmp_path):
    """(base URL, proxy): gunicorn -w 2 whose every database connection goes
    through the proxy, with persistent connections as deployed."""
    proxy = TCPProxy(*server_target())
    proc, base = start_gunicorn(database_url("127.0.0.1", proxy.port), tmp_path / "gunicorn.log")
    try:
        wait_up(proc, base)
        yield base, proxy
    finally:
        stop(proc)
        proxy.close()
