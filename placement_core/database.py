"""The one place a database URL becomes Django's DATABASES entry.

Both spellings an operator may hold are read here: Django-style URLs
(``DATABASE_URL``: ``sqlite:///path``, ``postgres://...``,
``mysql://...``) and the SQLAlchemy URLs of upstream's
``[placement_database] connection`` (``postgresql+psycopg2://...``,
``mysql+pymysql://...``), whose driver suffix is dropped: this service picks
its own driver per database (psycopg 3; PyMySQL for MariaDB/MySQL, see
docs/databases.md for why).
"""
import os
import re
import socket
import threading
import time
from dataclasses import dataclass

import dj_database_url

_DRIVER_SUFFIX = re.compile(r"^(?P<scheme>[a-z0-9]+)\+[a-z0-9_]+://")

# Names, uuids and external ids compare byte for byte, as they do on
# PostgreSQL and SQLite: 'rp-a' and 'RP-A' are two providers.
MYSQL_CHARSET = "utf8mb4"
MYSQL_COLLATION = "utf8mb4_bin"


# The session settings of a MariaDB/MySQL connection unless
# [placement_database] mysql_sql_mode says otherwise.
DEFAULT_MYSQL_SQL_MODE = "STRICT_TRANS_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO"


@dataclass(frozen=True)
class Limits:
    """How long a connection may wait, and upstream's pool options
    (``[placement_database]``; docs/databases.md "Database connections").

    ``statement_timeout`` (seconds, 0 = none) bounds each statement of the
    API server (settings.py passes 0 to commands: a migration or an import
    may rightly take long); ``connect_timeout`` bounds opening a connection
    everywhere. ``max_pool_size`` (None = no pool) turns on Django's psycopg
    pool on PostgreSQL.
    """

    connect_timeout: int = 5
    statement_timeout: int = 0
    max_pool_size: int | None = None
    max_overflow: int = 50
    pool_timeout: int = 10
    connection_parameters: str = ""
    mysql_sql_mode: str | None = DEFAULT_MYSQL_SQL_MODE


def database_settings(url: str, *, conn_max_age: int = 60, sync_wait: int | None = None,
                      limits: Limits = Limits()) -> dict:
    """``url`` -> one entry of Django's ``DATABASES``; ValueError if unusable.

    ``sync_wait`` (MariaDB Galera only): the session's ``wsrep_sync_wait``,
    so that reads wait until this node has applied every write the cluster
    certified before them (read-your-writes across nodes): the setting
    ``PLACEMENT_DB_SYNC_WAIT`` (checked by placement_site/config.py).

    A driver option the URL (or ``connection_parameters``) spells out itself
    wins over the one ``limits`` gives.
    """
    url = _DRIVER_SUFFIX.sub(lambda m: f"{m.group('scheme')}://", url.strip(), count=1)
    if limits.connection_parameters:
        url += ("&" if "?" in url else "?") + limits.connection_parameters
    try:
        db = dj_database_url.parse(url, conn_max_age=conn_max_age)
    except Exception as exc:  # dj_database_url raises several kinds
        raise ValueError(f"cannot use database URL {_hide_password(url)!r}: {exc}") from None
    db.setdefault("OPTIONS", {})
    statement_ms = int(limits.statement_timeout * 1000)
    if db["ENGINE"] == "django.db.backends.sqlite3":
        # Writers queue on the database lock instead of failing half-way
        # (DESIGN.md section 4), for at most the statement timeout when serving.
        db["OPTIONS"].update({"transaction_mode": "IMMEDIATE",
                              "timeout": limits.statement_timeout or 30})
        db["CONN_MAX_AGE"] = 0
    elif db["ENGINE"] == "django.db.backends.postgresql":
        # No JIT compilation: the candidate and summary statements run in
        # milliseconds but look costly to the planner, which then spent
        # about 24 ms compiling a 3,000-provider summary query run once.
        own = db["OPTIONS"].get("options", "").strip()
        server = "-c jit=off"
        if statement_ms:
            # The server gives up first and says so (57014); the client's own
            # deadline (StatementDeadlines) covers a server that says nothing.
            server += f" -c statement_timeout={statement_ms}"
        db["OPTIONS"]["options"] = f"{own} {server}".strip()
        # libpq's: the whole connection start-up, the server's first answer included.
        db["OPTIONS"].setdefault("connect_timeout", limits.connect_timeout)
        if limits.max_pool_size:
            db["OPTIONS"]["pool"] = {
                "min_size": limits.max_pool_size,
                "max_size": limits.max_pool_size + limits.max_overflow,
                "timeout": limits.pool_timeout,
                # connection_recycle_time; psycopg_pool's own default when 0.
                "max_lifetime": conn_max_age or 3600,
            }
            # Django refuses persistent connections beside a pool.
            db["CONN_MAX_AGE"] = 0
    elif db["ENGINE"] == "django.db.backends.mysql":
        _use_pymysql()
        if not db.get("NAME"):
            raise ValueError(f"cannot use database URL {_hide_password(url)!r}: it names no database")
        # One statement: the driver sends init_command without multi-statements.
        init = []
        if limits.mysql_sql_mode:
            init.append(f"SESSION sql_mode = '{limits.mysql_sql_mode}'")
        if sync_wait is not None:
            init.append(f"SESSION wsrep_sync_wait = {int(sync_wait)}")
        db["OPTIONS"].update({
            "charset": MYSQL_CHARSET,
            # READ COMMITTED (Django's default for MySQL, said here so that
            # it holds whatever the server's default is): a retried attempt
            # must see what the winner of a race committed.
            "isolation_level": "read committed",
        })
        if init:
            db["OPTIONS"]["init_command"] = "SET " + ", ".join(init)
        db["OPTIONS"].setdefault("connect_timeout", limits.connect_timeout)
        if statement_ms:
            # PyMySQL's socket timeouts: a statement whose answer does not
            # come in time loses its connection (2013), which is a 503.
            db["OPTIONS"].setdefault("read_timeout", limits.statement_timeout)
            db["OPTIONS"].setdefault("write_timeout", limits.statement_timeout)
        db["TEST"] = {"CHARSET": MYSQL_CHARSET, "COLLATION": MYSQL_COLLATION}
    return db


def replica_settings(url: str, *, primary: dict, conn_max_age: int, limits: Limits) -> dict:
    """``[placement_database] slave_connection`` -> the ``replica`` entry of
    DATABASES; ValueError if unusable. A URL without a database name reads
    the primary's database of the same name (a streaming replica holds
    every database of its primary)."""
    db = database_settings(url, conn_max_age=conn_max_age, limits=limits)
    postgres = "django.db.backends.postgresql"
    if db["ENGINE"] != postgres or primary["ENGINE"] != postgres:
        raise ValueError("reads from a replica need PostgreSQL for both the connection and "
                         "the slave_connection (a streaming replica)")
    db["NAME"] = db["NAME"] or primary["NAME"]
    # Tests use the primary's test database under this alias too.
    db["TEST"] = {"MIRROR": "default"}
    return db


def _hide_password(url: str) -> str:
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)


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


_SERVING = False


def mark_serving():
    """Called by the WSGI entry point before the settings load: the
    statement timeout bounds the API server's statements, not a command's."""
    global _SERVING
    _SERVING = True


def serving() -> bool:
    return _SERVING


class StatementDeadlines:
    """The client's side of the statement timeout on PostgreSQL.

    The server's ``statement_timeout`` stops a slow statement, but a server
    (or network path) that has stopped answering altogether never says so,
    and psycopg would wait for it for ever. This execute wrapper (and
    ``bounding``, around COMMIT and ROLLBACK) notes when each statement must
    be over; one thread per process shuts down the
    socket of a statement still waiting past that, so psycopg raises
    "connection lost" (a 503) and Django drops the connection. ``grace``
    leaves the server time to cancel first when it still can.
    """

    def __init__(self, seconds: float, grace: float = 1.0, tick: float = 0.25):
        self.seconds = seconds + grace
        self.tick = tick
        self._waiting = {}
        self._lock = threading.Lock()
        self._watcher = None
        self.cut = 0

    def __call__(self, execute, sql, params, many, context):
        key = self._enter(context["connection"].connection)
        try:
            return execute(sql, params, many, context)
        finally:
            with self._lock:
                self._waiting.pop(key, None)

    def bounding(self, wrapper, call):
        """``call`` (a DatabaseWrapper's ``_commit`` or ``_rollback``, which
        reach the driver without passing the execute wrappers) under the
        same deadline."""

        def bounded():
            if wrapper.connection is None:
                return call()
            key = self._enter(wrapper.connection)
            try:
                return call()
            finally:
                with self._lock:
                    self._waiting.pop(key, None)

        return bounded

    def _enter(self, driver_connection):
        if self._watcher is None:
            self._start()
        key = threading.get_ident()
        fd = driver_connection.fileno()
        with self._lock:
            self._waiting[key] = (time.monotonic() + self.seconds, fd)
        return key

    def _start(self):
        with self._lock:
            if self._watcher is None:
                self._watcher = threading.Thread(target=self._watch, daemon=True,
                                                 name="placement-statement-deadlines")
                self._watcher.start()

    def _watch(self):
        while True:
            time.sleep(self.tick)
            now = time.monotonic()
            # Under the lock: a statement that has just finished has left the
            # table, so its descriptor is still its own when it is cut.
            with self._lock:
                for key, (deadline, fd) in list(self._waiting.items()):
                    if now > deadline:
                        del self._waiting[key]
                        self.cut += 1
                        _shut_down(fd)


def _shut_down(fd: int):
    try:
        sock = socket.socket(fileno=os.dup(fd))
    except OSError:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    finally:
        sock.close()


def install_statement_deadlines(seconds: float) -> StatementDeadlines:
    """Every PostgreSQL connection of this process gets StatementDeadlines."""
    from django.db.backends.signals import connection_created

    deadlines = StatementDeadlines(seconds)

    def add_to(sender, connection, **kwargs):
        # Once per DatabaseWrapper (one per thread and alias), which outlives
        # its reconnections.
        if connection.vendor != "postgresql" or deadlines in connection.execute_wrappers:
            return
        connection.execute_wrappers.insert(0, deadlines)
        connection._commit = deadlines.bounding(connection, connection._commit)
        connection._rollback = deadlines.bounding(connection, connection._rollback)

    connection_created.connect(add_to, weak=False, dispatch_uid="placement-statement-deadlines")
    return deadlines


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
