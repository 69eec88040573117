"""Galera multi-master tests: run only by `make test-galera`, which starts a
3-node cluster (tests/galera/cluster.sh) and sets PLACEMENT_GALERA_TEST=1."""
import os
import socket
import subprocess
import time
from pathlib import Path

import pymysql
import pytest
import requests

PROJECT_DIR = Path(__file__).resolve().parents[2]
CLUSTER = Path(__file__).with_name("cluster.sh")
SQL_PORT = int(os.environ.get("GALERA_SQL_PORT", "3320"))
DB_NAME = "placement_galera"
NODES = (1, 2, 3)


def sql(node, statement, *, db=None, sync_wait=None):
    conn = pymysql.connect(host="127.0.0.1", port=SQL_PORT + node, user="root", database=db,
                           autocommit=True, connect_timeout=5)
    try:
        with conn.cursor() as cur:
            if sync_wait is not None:
                cur.execute(f"SET SESSION wsrep_sync_wait = {int(sync_wait)}")
            cur.execute(statement)
            return cur.fetchall()
    finally:
        conn.close()


def status(node, name):
    return int(sql(node, f"SHOW GLOBAL STATUS LIKE '{name}'")[0][1])


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Servers:
    """One gunicorn per Galera node, each on its own node's SQL port."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.procs, self.bases = {}, {}

    def start(self, node):
        port = _free_port()
        env = dict(os.environ)
        env.update({
            "DATABASE_URL": f"mysql://root@127.0.0.1:{SQL_PORT + node}/{DB_NAME}",
            "PLACEMENT_DB_SYNC_WAIT": "1",
            "PLACEMENT_AUTH_STRATEGY": "noauth2",
            "PLACEMENT_LOG_LEVEL": "WARNING",
        })
        log = open(self.tmp / f"gunicorn-n{node}.log", "w")
        self.procs[node] = subprocess.Popen(
            [str(PROJECT_DIR / ".venv/bin/gunicorn"), "placement_site.wsgi:application",
             "-b", f"127.0.0.1:{port}", "-w", "2", "-k", "gthread", "--threads", "4",
             "--timeout", "60"],
            cwd=PROJECT_DIR, env=env, stdout=log, stderr=subprocess.STDOUT)
        self.bases[node] = f"http://127.0.0.1:{port}"
        deadline = time.time() + 60
        while True:
            try:
                requests.get(self.bases[node] + "/", timeout=2)
                return
            except requests.RequestException:
                if self.procs[node].poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"gunicorn for node {node} did not start; see {log.name}")
                time.sleep(0.2)

    def stop(self):
        for proc in self.procs.values():
            proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    sql(1, f"DROP DATABASE IF EXISTS {DB_NAME}")
    sql(1, f"CREATE DATABASE {DB_NAME} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
    env = dict(os.environ, DATABASE_URL=f"mysql://root@127.0.0.1:{SQL_PORT + 1}/{DB_NAME}")
    subprocess.run([str(PROJECT_DIR / ".venv/bin/python"), "manage.py", "migrate", "--noinput",
                    "-v", "0"], cwd=PROJECT_DIR, env=env, check=True)
    s = Servers(tmp_path_factory.mktemp("galera"))
    try:
        for node in NODES:
            s.start(node)
        yield s
    finally:
        s.stop()
