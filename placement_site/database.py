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
    elif db["ENGINE"] == "django.db.backends.postgresql":
        # No JIT compilation: the candidate and summary statements run in
        # milliseconds but look costly to the planner, which then spent
        # about 24 ms compiling a 3,000-provider summary query run once.
        db.setdefault("OPTIONS", {})
        own = db["OPTIONS"].get("options", "").strip()
        db["OPTIONS"]["options"] = f"{own} -c jit=off".strip()
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


def describe(db: dict) -> str:
    """Where a DATABASES entry points, without its password, for messages."""
    engine = db["ENGINE"].rsplit(".", 1)[-1]
    if engine == "sqlite3":
        return f"sqlite {db['NAME']}"
    host = db.get("HOST") or "localhost"
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"{engine} {host}{port}/{db['NAME']}"


class DatabaseUnreachable(RuntimeError):
    """The database did not answer within the start-up wait."""


def wait_for_database(wait_seconds: int, *, log, alias="default", sleep=None):
    """Connect before serving: a server whose database is unreachable says so
    once a second for ``wait_seconds`` (the database may be starting with it),
    then raises DatabaseUnreachable (the server exits non-zero) instead of answering every request with a 503.
    Once connected, dropping the database later is a 503 per request and the
    server recovers by itself."""
    import time

    from django.db import DatabaseError, connections

    sleep = sleep or time.sleep
    conn = connections[alias]
    where = describe(conn.settings_dict)
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            conn.ensure_connection()
        except DatabaseError as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            left = deadline - time.monotonic()
            if left <= 0:
                raise DatabaseUnreachable(
                    f"placement: cannot reach the database ({where}) after {wait_seconds} s: "
                    f"{reason}; exiting (PLACEMENT_DB_STARTUP_WAIT sets how long to wait)")
            log.warning("placement: cannot reach the database (%s): %s; retrying for %d more s",
                        where, reason, int(left + 0.999))
            sleep(min(1.0, max(left, 0.01)))
        else:
            conn.close()
            return


def exit_as_first_failed_worker(status: int):
    """Exit ``status`` from the first worker of this server, 1 from the others.

    Every gunicorn worker fails to boot at the same moment. Gunicorn stops on
    a worker's status 3, but when a second worker exits 3 while the master is
    already stopping for the first, gunicorn dies with its own traceback
    instead of its clean message (its stop() reaps and raises again). So only
    the first worker of this master (an O_EXCL marker named after the
    master's pid and start time) exits 3; the others exit 1, which gunicorn
    logs and ignores while it stops."""
    import os
    import tempfile
    import time

    try:
        with open(f"/proc/{os.getppid()}/stat") as handle:
            started = handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        raise SystemExit(status)
    marker = os.path.join(tempfile.gettempdir(),
                          f"placement-startup-failed-{os.getppid()}-{started}")
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        # Not first: give the master a moment to see the first one's 3, so
        # that it does not fork a replacement for us in between.
        time.sleep(0.5)
        raise SystemExit(1)
    raise SystemExit(status)


def placeholders(values) -> str:
    """``%s, %s, ...``, one per value, for a raw statement's ``IN (...)`` list."""
    return ", ".join(["%s"] * len(values))
