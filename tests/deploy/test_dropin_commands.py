"""The maintenance commands as deployment tools run them: upstream's exit
codes with the database unreachable, URLs with SQLAlchemy-only parameters,
db sync refusing a database at another upstream revision."""
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.db import connection

from placement_core.database import database_settings, drop_foreign_parameters

PROJECT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(tool, *args, url, tmp_path):
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("PLACEMENT_", "OS_", "DATABASE_URL"))}
    environ.update(OS_PLACEMENT_CONFIG_DIR=str(tmp_path), DATABASE_URL=url,
                   PLACEMENT_DB_CONNECT_TIMEOUT="2")
    main = {"manage": "main_manage", "status": "main_status"}[tool]
    return subprocess.run([sys.executable, "-c", f"from maintenance.cli import {main}; {main}()",
                           *args], env=environ, cwd=PROJECT, capture_output=True, text=True,
                          timeout=120)


# Nothing listens on these ports (this session's range).
UNREACHABLE = ["postgres://root@127.0.0.1:20499/h4_none", "mysql://root@127.0.0.1:20498/h4_none"]


@pytest.mark.parametrize("url", UNREACHABLE)
def test_online_data_migrations_exits_2_when_the_database_is_unreachable(tmp_path, url):
    result = run("manage", "db", "online_data_migrations", url=url, tmp_path=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("placement-manage: the database")


@pytest.mark.parametrize("url", UNREACHABLE)
def test_upgrade_check_exits_255_when_the_database_is_unreachable(tmp_path, url):
    result = run("status", "upgrade", "check", url=url, tmp_path=tmp_path)
    assert result.returncode == 255, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().startswith("placement-status: the database cannot be reached")


def test_online_data_migrations_before_db_sync_is_an_error(tmp_path):
    url = f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    result = run("manage", "db", "online_data_migrations", url=url, tmp_path=tmp_path)
    assert result.returncode == 2
    assert "run `placement-manage db sync`" in result.stderr


@pytest.mark.parametrize("url,kept,dropped", [
    ("mysql+pymysql://u:p@h/placement?charset=utf8&plugin=dbcounter", {"charset"}, ["plugin"]),
    ("postgresql+psycopg2://u@h/placement?sslmode=require&plugin=x&client_encoding=utf8",
     {"sslmode", "client_encoding"}, ["plugin"]),
    ("sqlite:////tmp/x.sqlite3?plugin=dbcounter&timeout=3", {"timeout"}, ["plugin"]),
])
def test_parameters_no_driver_takes_are_dropped_with_one_line(url, kept, dropped):
    lines = []
    db = database_settings(url, warn=lines.append)
    assert kept <= set(db["OPTIONS"])
    assert not set(dropped) & set(db["OPTIONS"])
    assert lines == [f"placement: database URL parameter(s) ignored, not taken by the "
                     f"{db['ENGINE'].rsplit('.', 1)[-1]} driver: {', '.join(dropped)}"]
    assert drop_foreign_parameters(db, warn=lines.append) == [] and len(lines) == 1


def test_devstacks_url_syncs(tmp_path):
    # mysql+pymysql://...?charset=utf8&plugin=dbcounter on the SQLite spelling
    # here; tests/deploytools run it on MariaDB.
    url = f"sqlite:///{tmp_path / 'd.sqlite3'}?plugin=dbcounter"
    result = run("manage", "db", "sync", url=url, tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("ignored, not taken by the sqlite3 driver: plugin") == 1


UPSTREAM_TABLES = [
    "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY)",
    "INSERT INTO alembic_version VALUES ('b5c396305c25')",
    "CREATE TABLE resource_classes (id INTEGER NOT NULL PRIMARY KEY, name VARCHAR(255))",
    "CREATE TABLE resource_providers (id INTEGER NOT NULL PRIMARY KEY, uuid VARCHAR(36))",
]


@pytest.fixture
def upstream_database(tmp_path):
    """A database with upstream's marks, on the server this run uses."""
    vendor = connection.vendor
    if vendor == "sqlite":
        import sqlite3

        path = tmp_path / "upstream.sqlite3"
        with sqlite3.connect(path) as conn:
            for sql in UPSTREAM_TABLES:
                conn.execute(sql)
        yield f"sqlite:///{path}", lambda: [
            r[0] for r in sqlite3.connect(path).execute(
                "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        return
    db = settings.DATABASES["default"]
    name = f"{db['NAME']}_upstream"[:60]
    scheme = "postgres" if vendor == "postgresql" else "mysql"
    url = f"{scheme}://{db['USER']}@{db['HOST']}:{db['PORT']}/{name}"
    with connection.cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {name}")
        cursor.execute(f"CREATE DATABASE {name}")
    from placement_core.database import dbapi_connect

    def tables():
        conn = dbapi_connect(url)
        try:
            cur = conn.cursor()
            if vendor == "postgresql":
                cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
            else:
                cur.execute("SHOW TABLES")
            return sorted(r[0] for r in cur.fetchall())
        finally:
            conn.close()

    conn = dbapi_connect(url)
    cur = conn.cursor()
    for sql in UPSTREAM_TABLES:
        cur.execute(sql)
    conn.commit()
    conn.close()
    try:
        yield url, tables
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {name}")


@pytest.mark.django_db(transaction=True)
def test_db_sync_refuses_an_older_upstream_revision_and_writes_nothing(tmp_path,
                                                                       upstream_database):
    # At upstream's head db sync adopts the database (tests/onedb); at any
    # other revision it stops before writing.
    url, tables = upstream_database
    before = tables()
    result = run("manage", "db", "sync", url=url, tmp_path=tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "placement-manage: this database is at upstream Placement's schema revision "
        "b5c396305c25; this service needs a082b8bb98d0 (upstream 16.0.0): upgrade it with "
        "upstream's own `placement-manage db sync` first, then run this one again")
    assert tables() == before
