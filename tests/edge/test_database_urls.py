"""Database URLs, Django and SQLAlchemy spellings, become DATABASES entries."""
import pytest

from placement_core.database import database_settings
from placement_site import config


@pytest.mark.parametrize("url", [
    "mysql://placement:secret@db.example:3307/placement",
    "mysql+pymysql://placement:secret@db.example:3307/placement",
])
def test_mysql_urls(url):
    db = database_settings(url)
    assert db["ENGINE"] == "django.db.backends.mysql"
    assert (db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == (
        "placement", "placement", "secret", "db.example", 3307)
    assert db["OPTIONS"]["charset"] == "utf8mb4"
    assert db["OPTIONS"]["isolation_level"] == "read committed"
    assert "STRICT_TRANS_TABLES" in db["OPTIONS"]["init_command"]
    assert "wsrep_sync_wait" not in db["OPTIONS"]["init_command"]
    assert db["TEST"] == {"CHARSET": "utf8mb4", "COLLATION": "utf8mb4_bin"}


def test_galera_read_your_writes_is_a_session_setting():
    db = database_settings("mysql://u@h/placement", sync_wait=1)
    assert ", SESSION wsrep_sync_wait = 1" in db["OPTIONS"]["init_command"]


def test_mysql_url_without_database_is_refused():
    with pytest.raises(ValueError, match="names no database"):
        database_settings("mysql://u@h:3306/")


def test_postgres_sqlalchemy_spelling():
    db = database_settings("postgresql+psycopg2://u:p@h:5433/placement")
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert db["NAME"] == "placement"


def test_sync_wait_from_the_environment():
    values, _ = config.load({"PLACEMENT_DB_SYNC_WAIT": "3",
                             "OS_PLACEMENT_CONFIG_DIR": "/nonexistent"})
    db = database_settings("mysql://u@h/placement", sync_wait=values["PLACEMENT_DB_SYNC_WAIT"])
    assert ", SESSION wsrep_sync_wait = 3" in db["OPTIONS"]["init_command"]


@pytest.mark.parametrize("bad", ["always", "16", "-1"])
def test_bad_sync_wait_stops_start_up(bad):
    with pytest.raises(config.ConfigError, match="PLACEMENT_DB_SYNC_WAIT: expected an integer "
                                                 "from 0 to 15"):
        config.load({"PLACEMENT_DB_SYNC_WAIT": bad, "OS_PLACEMENT_CONFIG_DIR": "/nonexistent"})
