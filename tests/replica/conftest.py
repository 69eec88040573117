"""Reads from a streaming replica: run only by `make test-replica`, which
starts a PostgreSQL primary and a replica on loopback (tests/replica/cluster.sh)
and sets PLACEMENT_REPLICA_TEST=1."""
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
import requests

PROJECT_DIR = Path(__file__).resolve().parents[2]
CLUSTER = Path(__file__).with_name("cluster.sh")
PRIMARY_PORT = int(os.environ.get("REPLICA_PRIMARY_PORT", "5440"))
STANDBY_PORT = int(os.environ.get("REPLICA_STANDBY_PORT", "5441"))
DB_NAME = "placement_replica"
PORTS = range(*(int(p) + i for i, p in enumerate(
    os.environ.get("REPLICA_TEST_PORTS", "19700-19799").split("-"))))
HEADERS = {"x-auth-token": "admin", "openstack-api-version": "placement 1.39",
           "accept": "application/json"}


def sql(port, statement, params=(), *, db=DB_NAME):
    with psycopg.connect(host="127.0.0.1", port=port, user="root", dbname=db,
                         autocommit=True, connect_timeout=5) as conn:
        cur = conn.execute(statement, params)
        return cur.fetchall() if cur.description else None


def primary(statement, params=()):
    return sql(PRIMARY_PORT, statement, params)


def replica(statement, params=()):
    return sql(STANDBY_PORT, statement, params)


def wait_caught_up(limit=30):
    """Until the replica has replayed everything the primary has written."""
    deadline = time.monotonic() + limit
    while True:
        lsn = primary("SELECT pg_current_wal_insert_lsn()::text")[0][0]
        if replica("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (lsn,))[0][0]:
            return
        assert time.monotonic() < deadline, "the replica does not catch up"
        time.sleep(0.05)


def pause_replay():
    replica("SELECT pg_wal_replay_pause()")


def resume_replay():
    replica("SELECT pg_wal_replay_resume()")


def cluster(action):
    subprocess.run([str(CLUSTER), action], check=True)


def _free_port():
    for port in PORTS:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {PORTS}")


@pytest.fixture(scope="session")
def database():
    """A migrated database on the primary, present on the replica."""
    sql(PRIMARY_PORT, f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)", db="postgres")
    sql(PRIMARY_PORT, f"CREATE DATABASE {DB_NAME}", db="postgres")
    env = _server_env(0)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
                   cwd=PROJECT_DIR, env=env, check=True)
    wait_caught_up()
    yield
    sql(PRIMARY_PORT, f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)", db="postgres")


def _server_env(max_lag):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PLACEMENT_", "OS_")) and k != "DATABASE_URL"}
    env.update({
        "DATABASE_URL": f"postgres://root@127.0.0.1:{PRIMARY_PORT}/{DB_NAME}",
        # No database name: the primary's is read on the replica.
        "PLACEMENT_DB_REPLICA_URL": f"postgres://root@127.0.0.1:{STANDBY_PORT}",
        "PLACEMENT_DB_REPLICA_MAX_LAG": str(max_lag),
        "PLACEMENT_AUTH_STRATEGY": "noauth2",
        "PLACEMENT_LOG_LEVEL": "WARNING",
        "PLACEMENT_REQUEST_LOG_LEVEL": "WARNING",
    })
    return env


class Server:
    def __init__(self, max_lag, log_path):
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(
            [str(PROJECT_DIR / ".venv" / "bin" / "gunicorn"), "placement_site.wsgi:application",
             "-b", f"127.0.0.1:{self.port}", "-w", "1", "-k", "gthread", "--threads", "4"],
            cwd=PROJECT_DIR, env=_server_env(max_lag), stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            try:
                requests.get(self.base + "/", timeout=2)
                break
            except requests.RequestException:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"gunicorn did not start; see {log_path}")
                time.sleep(0.2)

    def call(self, method, path, **kw):
        return requests.request(method, self.base + path, headers=HEADERS, timeout=60, **kw)

    def bulk_reads(self):
        """{(source, reason): count} from this server's /metrics."""
        text = self.call("GET", "/metrics").text
        found = re.findall(
            r'^placement_db_bulk_reads_total\{reason="(\w+)",source="(\w+)"\} ([0-9.e+]+)$',
            text, re.M)
        return {(source, reason): float(n) for reason, source, n in found}

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


@pytest.fixture
def server(database, tmp_path):
    """server(max_lag) -> a running gunicorn -w 1 reading bulk reads from the replica."""
    started = []

    def start(max_lag=0):
        started.append(Server(max_lag, tmp_path / f"gunicorn-{len(started)}.log"))
        return started[-1]

    yield start
    for s in started:
        s.stop()
    resume_replay_if_up()


def resume_replay_if_up():
    try:
        resume_replay()
    except psycopg.OperationalError:
        pass


def delta(after, before):
    return {k: after[k] - before.get(k, 0) for k in after if after[k] - before.get(k, 0)}
