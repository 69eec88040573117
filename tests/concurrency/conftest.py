"""Fixtures for the race tests: a real multi-process server on the test database."""
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests
from django.db import connection, connections

PROJECT_DIR = Path(__file__).resolve().parents[2]
GUNICORN = PROJECT_DIR / ".venv" / "bin" / "gunicorn"


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _database_url():
    s = connection.settings_dict
    user = s.get("USER") or ""
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    auth = f"{user}{password}@" if user else ""
    host = s.get("HOST") or "127.0.0.1"
    scheme, port = ("mysql", 3306) if connection.vendor == "mysql" else ("postgres", 5432)
    return f"{scheme}://{auth}{host}:{s.get('PORT') or port}/{s['NAME']}"


@pytest.fixture
def placement_server(transactional_db):
    """gunicorn (3 worker processes x 4 threads) serving the test database on loopback."""
    port = _free_port()
    env = dict(os.environ)
    env.update({
        "DATABASE_URL": _database_url(),
        "PLACEMENT_AUTH_STRATEGY": "noauth2",
        "PLACEMENT_DB_CONN_MAX_AGE": "0",
        "PLACEMENT_LOG_LEVEL": "WARNING",
    })
    log = open(Path(os.environ.get("TMPDIR", "/tmp")) / f"race-gunicorn-{port}.log", "w")
    proc = subprocess.Popen(
        [str(GUNICORN), "placement_site.wsgi:application", "-b", f"127.0.0.1:{port}",
         "-w", "3", "-k", "gthread", "--threads", "4", "--timeout", "120"],
        cwd=PROJECT_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                requests.get(base + "/", timeout=2)
                break
            except requests.RequestException:
                if proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"gunicorn did not start; see {log.name}")
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def run_client_process(job):
    """Start claim_worker.py in its own process; returns the Popen (stdout piped)."""
    import json

    return subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("claim_worker.py")), json.dumps(job)],
        cwd=PROJECT_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


class UsageMonitor:
    """Polls SUM(used) per provider on its own connection; remembers the maxima seen."""

    def __init__(self, provider_ids):
        self.provider_ids = list(provider_ids)
        self.maxima = {pk: 0 for pk in self.provider_ids}
        self.polls = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        try:
            with connections["default"].cursor() as cursor:
                while not self._stop.is_set():
                    marks = ", ".join(["%s"] * len(self.provider_ids))
                    cursor.execute(
                        "SELECT resource_provider_id, SUM(used) FROM allocations "
                        f"WHERE resource_provider_id IN ({marks}) GROUP BY resource_provider_id",
                        self.provider_ids,
                    )
                    for pk, total in cursor.fetchall():
                        self.maxima[pk] = max(self.maxima[pk], int(total))
                    self.polls += 1
                    time.sleep(0.005)
        finally:
            connections["default"].close()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=30)
