"""The one place a database URL becomes Django's DATABASES entry.

Both spellings an operator may hold are read here: Django-style URLs
(``DATABASE_URL``: ``sqlite:///path``, ``postgres://...``,
``mysql://...``) and the SQLAlchemy URLs of upstream's
``[placement_database] connection`` (``postgresql+psycopg2://...``,
``mysql+pymysql://...``), whose driver suffix is dropped: this service picks
its own driver per database (psycopg 3; PyMySQL for MariaDB/MySQL, see the
README for why).
"""
import os
import re

import dj_database_url

_DRIVER_SUFFIX = re.compile(r"^(?P<scheme>[a-z0-9]+)\+[a-z0-9_]+://")

# Names, uuids and external ids compare byte for byte, as they do on
# PostgreSQL and SQLite: 'rp-a' and 'RP-A' are two providers.
MYSQL_CHARSET = "utf8mb4"
MYSQL_COLLATION = "utf8mb4_bin"


def database_settings(url: str, *, conn_max_age: int = 60, sync_wait: int | None = None) -> dict:
    """``url`` -> one entry of Django's ``DATABASES``; ValueError if unusable.

    ``sync_wait`` (MariaDB Galera only): the session's ``wsrep_sync_wait``,
    so that reads wait until this node has applied every write the cluster
    certified before them (read-your-writes across nodes). Unset, it comes
    from ``PLACEMENT_DB_SYNC_WAIT`` in the environment.
    """
    if sync_wait is None and os.environ.get("PLACEMENT_DB_SYNC_WAIT", "").strip():
        raw = os.environ["PLACEMENT_DB_SYNC_WAIT"].strip()
        if not raw.isdigit() or int(raw) > 15:
            raise ValueError(f"PLACEMENT_DB_SYNC_WAIT must be a number 0-15 (a wsrep_sync_wait "
                             f"bit mask), not {raw!r}")
        sync_wait = int(raw)
    url = _DRIVER_SUFFIX.sub(lambda m: f"{m.group('scheme')}://", url.strip(), count=1)
    try:
        db = dj_database_url.parse(url, conn_max_age=conn_max_age)
    except Exception as exc:  # dj_database_url raises several kinds
        raise ValueError(f"cannot use database URL {url!r}: {exc}") from None
    if db["ENGINE"] == "django.db.backends.sqlite3":
        # Writers queue on the database lock instead of failing half-way
        # (DESIGN.md section 4).
        db.setdefault("OPTIONS", {})
        db["OPTIONS"].update({"transaction_mode": "IMMEDIATE", "timeout": 30})
        db["CONN_MAX_AGE"] = 0
    elif db["ENGINE"] == "django.db.backends.mysql":
        _use_pymysql()
        if not db.get("NAME"):
            raise ValueError(f"cannot use database URL {url!r}: it names no database")
        # One statement: the driver sends init_command without multi-statements.
        init = ["SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_DATE,"
                "NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO'"]
        if sync_wait is not None:
            init.append(f"SESSION wsrep_sync_wait = {int(sync_wait)}")
        db.setdefault("OPTIONS", {})
        db["OPTIONS"].update({
            "charset": MYSQL_CHARSET,
            # READ COMMITTED (Django's default for MySQL, said here so that
            # it holds whatever the server's default is): a retried attempt
            # must see what the winner of a race committed.
            "isolation_level": "read committed",
            "init_command": ", ".join(init),
        })
        db["TEST"] = {"CHARSET": MYSQL_CHARSET, "COLLATION": MYSQL_COLLATION}
    return db


def _use_pymysql():
    """Django's MySQL backend imports ``MySQLdb`` (mysqlclient); PyMySQL
    stands in for it, so nothing needs a C compiler or libmariadb-dev."""
    import pymysql

    pymysql.install_as_MySQLdb()


def dbapi_connect(url: str):
    """A read-only-minded DB-API connection for any URL this module reads
    (upstream's ``mysql+pymysql://`` spelling included)."""
    cfg = database_settings(url, conn_max_age=0)
    engine = cfg["ENGINE"]
    if engine.endswith("sqlite3"):
        import sqlite3

        return sqlite3.connect(f"file:{cfg['NAME']}?mode=ro", uri=True)
    if engine.endswith("postgresql"):
        import psycopg

        return psycopg.connect(
            host=cfg.get("HOST") or None, port=cfg.get("PORT") or None,
            user=cfg.get("USER") or None, password=cfg.get("PASSWORD") or None,
            dbname=cfg["NAME"])
    if engine.endswith("mysql"):
        import pymysql

        return pymysql.connect(
            host=cfg.get("HOST") or "localhost", port=int(cfg.get("PORT") or 3306),
            user=cfg.get("USER") or None, password=cfg.get("PASSWORD") or "",
            database=cfg["NAME"], charset=MYSQL_CHARSET)
    raise ValueError(f"unsupported database URL scheme: {url.split(':', 1)[0]}")
