"""Upstream's [placement_database] options (and the connect and statement
timeouts) are read from placement.conf and OS_PLACEMENT_DATABASE__*, mapped
onto Django's DATABASES entry, and a bad value stops start-up in one line."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from placement_site import config
from placement_core.database import DEFAULT_MYSQL_SQL_MODE, Limits, database_settings

PROJECT_DIR = Path(__file__).resolve().parents[2]


def write_conf(tmp_path, text):
    (tmp_path / "placement.conf").write_text(text)
    return {"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)}


def settings_databases(tmp_path, env_extra, *, serving=False):
    """settings.DATABASES["default"] (and PLACEMENT_DB_STATEMENT_TIMEOUT) as a
    fresh process sees them, or (None, the error line)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PLACEMENT_", "OS_")) and k != "DATABASE_URL"}
    env.update(OS_PLACEMENT_CONFIG_DIR=str(tmp_path),
               DJANGO_SETTINGS_MODULE="placement_site.settings", **env_extra)
    code = ("import json; from placement_core import database\n"
            + ("database.mark_serving()\n" if serving else "")
            + "from django.conf import settings\n"
              "print(json.dumps([settings.DATABASES['default'], "
              "settings.PLACEMENT_DB_STATEMENT_TIMEOUT], default=str))")
    result = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_DIR, env=env,
                            capture_output=True, text=True)
    if result.returncode:
        return None, result.stderr.strip()
    import json

    return json.loads(result.stdout), None


def test_defaults(tmp_path):
    values, _ = config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)})
    assert values["DB_MAX_POOL_SIZE"] is None
    assert values["PLACEMENT_DB_CONN_MAX_AGE"] == 60
    assert values["PLACEMENT_DB_CONNECT_TIMEOUT"] == 5
    assert values["PLACEMENT_DB_STATEMENT_TIMEOUT"] == 10
    assert values["DB_MYSQL_SQL_MODE"] is None
    assert values["DATABASE_REPLICA_CONNECTION"] is None
    assert values["PLACEMENT_DB_REPLICA_MAX_LAG"] == 0


def test_placement_conf_options_reach_the_postgresql_entry(tmp_path):
    write_conf(tmp_path, """
[placement_database]
connection = postgresql+psycopg2://root@127.0.0.1:5432/placement
max_pool_size = 3
max_overflow = 4
pool_timeout = 7
connection_recycle_time = 120
connection_parameters = application_name=placement-a&sslmode=disable
connect_timeout = 3
statement_timeout = 8
""")
    (db, statement), error = settings_databases(tmp_path, {}, serving=True)
    assert error is None
    assert db["OPTIONS"]["pool"] == {"min_size": 3, "max_size": 7, "timeout": 7,
                                     "max_lifetime": 120}
    assert db["CONN_MAX_AGE"] == 0  # Django's pool and persistent connections exclude each other
    assert db["OPTIONS"]["application_name"] == "placement-a"
    assert db["OPTIONS"]["sslmode"] == "disable"
    assert db["OPTIONS"]["connect_timeout"] == 3
    assert db["OPTIONS"]["options"] == "-c jit=off -c statement_timeout=8000"
    assert statement == 8


def test_commands_run_without_the_statement_timeout(tmp_path):
    (db, statement), error = settings_databases(
        tmp_path, {"DATABASE_URL": "postgres://root@127.0.0.1:5432/placement",
                   "OS_PLACEMENT_DATABASE__STATEMENT_TIMEOUT": "8"})
    assert statement == 0
    assert db["OPTIONS"]["options"] == "-c jit=off"
    assert db["OPTIONS"]["connect_timeout"] == 5


def test_os_variables_reach_the_mysql_entry(tmp_path):
    (db, statement), error = settings_databases(tmp_path, {
        "DATABASE_URL": "mysql://root@127.0.0.1:3306/placement",
        "OS_PLACEMENT_DATABASE__MYSQL_SQL_MODE": "TRADITIONAL",
        "OS_PLACEMENT_DATABASE__CONNECTION_RECYCLE_TIME": "30",
        "OS_PLACEMENT_DATABASE__CONNECT_TIMEOUT": "4",
        "OS_PLACEMENT_DATABASE__STATEMENT_TIMEOUT": "6",
        "OS_PLACEMENT_DATABASE__CONNECTION_PARAMETERS": "ssl_ca=/etc/ca.pem",
    }, serving=True)
    assert error is None
    assert db["OPTIONS"]["init_command"] == (
        "SET SESSION sql_mode = 'TRADITIONAL,NO_AUTO_VALUE_ON_ZERO'")
    assert db["CONN_MAX_AGE"] == 30
    assert (db["OPTIONS"]["connect_timeout"], db["OPTIONS"]["read_timeout"],
            db["OPTIONS"]["write_timeout"]) == (4, 6, 6)
    assert db["OPTIONS"]["ssl_ca"] == "/etc/ca.pem"
    # No pool on MariaDB/MySQL: Django has none there.
    assert "pool" not in db["OPTIONS"]


def test_empty_sql_mode_keeps_the_servers():
    # Plus NO_AUTO_VALUE_ON_ZERO, always: VCPU's resource class id is 0.
    keep = "SESSION sql_mode = CONCAT(@@sql_mode, ',NO_AUTO_VALUE_ON_ZERO')"
    db = database_settings("mysql://u@h/placement", limits=Limits(mysql_sql_mode=""))
    assert db["OPTIONS"]["init_command"] == f"SET {keep}"
    db = database_settings("mysql://u@h/placement", sync_wait=1, limits=Limits(mysql_sql_mode=""))
    assert db["OPTIONS"]["init_command"] == f"SET {keep}, SESSION wsrep_sync_wait = 1"
    db = database_settings("mysql://u@h/placement")
    assert db["OPTIONS"]["init_command"] == (
        f"SET SESSION sql_mode = '{DEFAULT_MYSQL_SQL_MODE},NO_AUTO_VALUE_ON_ZERO'")


def test_url_spelled_driver_option_wins():
    db = database_settings("postgres://u@h/placement?connect_timeout=9",
                           limits=Limits(connect_timeout=3))
    assert db["OPTIONS"]["connect_timeout"] == 9


def test_sqlite_waits_for_the_lock_at_most_the_statement_timeout():
    assert database_settings("sqlite:///x.db")["OPTIONS"]["timeout"] == 30
    assert database_settings("sqlite:///x.db", limits=Limits(statement_timeout=10))[
        "OPTIONS"]["timeout"] == 10


@pytest.mark.parametrize("variable, value, words", [
    ("OS_PLACEMENT_DATABASE__MAX_POOL_SIZE", "0", ">= 1"),
    ("OS_PLACEMENT_DATABASE__MAX_OVERFLOW", "many", "an integer"),
    ("OS_PLACEMENT_DATABASE__POOL_TIMEOUT", "0", ">= 1"),
    ("OS_PLACEMENT_DATABASE__CONNECTION_RECYCLE_TIME", "-1", ">= 0"),
    ("OS_PLACEMENT_DATABASE__CONNECT_TIMEOUT", "1", ">= 2"),
    ("PLACEMENT_DB_STATEMENT_TIMEOUT", "soon", "an integer"),
    ("OS_PLACEMENT_DATABASE__MYSQL_SQL_MODE", "TRADITIONAL'; DROP TABLE x",
     "comma-separated SQL mode names"),
    ("OS_PLACEMENT_DATABASE__CONNECTION_PARAMETERS", "sslmode", "name=value pairs"),
    ("PLACEMENT_DB_REPLICA_MAX_LAG", "-0.5", "a number >= 0"),
])
def test_bad_value_is_one_line(tmp_path, variable, value, words):
    with pytest.raises(config.ConfigError) as info:
        config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path), variable: value})
    assert words in str(info.value)
    assert "\n" not in str(info.value)


def test_bad_file_value_stops_start_up_in_one_line(tmp_path):
    write_conf(tmp_path, "[placement_database]\nmax_pool_size = lots\n")
    _, error = settings_databases(tmp_path, {})
    assert error == ("placement: invalid value for [placement_database] max_pool_size: "
                     "expected an integer >= 1")
    write_conf(tmp_path, "[placement_database]\nmysql_sql_mode = A;B\n")
    _, error = settings_databases(tmp_path, {})
    assert error == ("placement: invalid value 'A;B' for [placement_database] mysql_sql_mode: "
                     "expected comma-separated SQL mode names (e.g. TRADITIONAL)")


def test_slave_connection_from_placement_conf(tmp_path):
    write_conf(tmp_path, """
[placement_database]
connection = postgresql+psycopg2://root@db1:5432/placement
slave_connection = postgresql+psycopg2://reader:pw@db2:5433
replica_max_lag = 1.5
""")
    env = {"OS_PLACEMENT_DATABASE__CONNECT_TIMEOUT": "3"}
    (db, _), error = settings_databases(tmp_path, env)
    assert error is None
    code = ("from django.conf import settings; import json; print(json.dumps(["
            "settings.DATABASES['replica'], settings.DATABASE_ROUTERS, "
            "settings.PLACEMENT_DB_REPLICA_MAX_LAG]))")
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_DIR, capture_output=True, text=True,
        env={**{k: v for k, v in os.environ.items()
                if not k.startswith(("PLACEMENT_", "OS_")) and k != "DATABASE_URL"},
             "OS_PLACEMENT_CONFIG_DIR": str(tmp_path), **env,
             "DJANGO_SETTINGS_MODULE": "placement_site.settings"})
    import json

    replica, routers, lag = json.loads(result.stdout)
    # No database name: the primary's, on the replica's host.
    assert (replica["HOST"], replica["PORT"], replica["NAME"], replica["USER"]) == (
        "db2", 5433, "placement", "reader")
    assert replica["OPTIONS"]["connect_timeout"] == 3
    assert replica["TEST"] == {"MIRROR": "default"}
    assert routers == ["placement_core.replica.ReplicaRouter"]
    assert lag == 1.5


def test_replica_needs_postgresql(tmp_path):
    _, error = settings_databases(tmp_path, {
        "DATABASE_URL": "mysql://root@127.0.0.1:3306/placement",
        "PLACEMENT_DB_REPLICA_URL": "mysql://root@127.0.0.2:3306/placement"})
    assert error == ("placement: [placement_database] slave_connection: reads from a replica "
                     "need PostgreSQL for both the connection and the slave_connection "
                     "(a streaming replica)")


def test_without_a_replica_every_read_is_the_primarys():
    from placement_core import replica

    assert not replica.configured()
    assert replica.read_alias() == "default"
