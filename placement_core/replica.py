"""Reads from a PostgreSQL streaming replica ([placement_database]
slave_connection; docs/databases.md "Reads from a replica").

Only the read-only bulk reads go there: the views decorated with
``bulk_read`` (allocation candidates, provider lists, usages). Every write,
every other read, and every lock is the primary's. Before a bulk read, the
replica must be in recovery (a replica, not a promoted copy) and caught up:
it has replayed the primary's WAL up to where it stood when the read began
(so the read sees every write acknowledged before it: read-your-writes), or
it is behind by no more than ``PLACEMENT_DB_REPLICA_MAX_LAG`` seconds of
commits. Otherwise, and whenever the replica fails mid-read, the read runs
on the primary; a replica that cannot be reached is left alone for
``DOWN_SECONDS``.

Raw SQL follows the same choice through ``read_rows()`` (or
``read_alias()``); the ORM through ``ReplicaRouter``
(settings.DATABASE_ROUTERS).
"""
import contextvars
import functools
import logging
import time

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

from placement_core.metrics import BULK_READS

REPLICA = "replica"
# A replica that could not be reached is not tried again for this long.
DOWN_SECONDS = 5.0

log = logging.getLogger("placement.replica")

_alias = contextvars.ContextVar("placement_read_alias", default=DEFAULT_DB_ALIAS)
_down_until = 0.0
_last_state = None


def configured() -> bool:
    return REPLICA in settings.DATABASES


def read_alias() -> str:
    """The database alias the current read goes to."""
    return _alias.get()


def read_rows(sql: str, params=()) -> list:
    """The rows of one raw read, from the database the current read goes
    to (the replica inside a ``bulk_read`` that may use it)."""
    with connections[_alias.get()].cursor() as cursor:
        cursor.execute(sql, list(params))
        return cursor.fetchall()


class ReplicaRouter:
    """ORM reads inside ``bulk_read`` go to the replica; everything else,
    writes, migrations and relations, to the primary."""

    def db_for_read(self, model, **hints):
        return _alias.get()

    def db_for_write(self, model, **hints):
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints):
        return True

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == DEFAULT_DB_ALIAS


def bulk_read(handler):
    """Decorate a view's GET handler whose queries all only read."""

    @functools.wraps(handler)
    def read(view, request, *args, **kwargs):
        if not configured():
            return handler(view, request, *args, **kwargs)
        reason = _replica_state()
        if reason != "fresh":
            BULK_READS.labels("primary", reason).inc()
            return handler(view, request, *args, **kwargs)
        token = _alias.set(REPLICA)
        try:
            response = handler(view, request, *args, **kwargs)
        except DatabaseError as exc:
            # Nothing was written: the same read on the primary is safe.
            _replica_failed(exc)
        else:
            BULK_READS.labels(REPLICA, "fresh").inc()
            log.debug("bulk read from the replica: %s %s", request.method, request.path)
            return response
        finally:
            _alias.reset(token)
        BULK_READS.labels("primary", "failed").inc()
        return handler(view, request, *args, **kwargs)

    return read


def _replica_state() -> str:
    """fresh, lagging, down or not_a_replica."""
    if time.monotonic() < _down_until:
        return "down"
    # A primary that fails here fails the request as it would without a replica (a 503).
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_insert_lsn()::text")
        primary_lsn = cursor.fetchone()[0]
    try:
        with connections[REPLICA].cursor() as cursor:
            cursor.execute(
                "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn() >= %s::pg_lsn, "
                "EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp())",
                [primary_lsn])
            in_recovery, caught_up, behind = cursor.fetchone()
    except DatabaseError as exc:
        _replica_failed(exc)
        return "down"
    if not in_recovery:
        state = "not_a_replica"
    elif caught_up or (behind is not None and float(behind) <= settings.PLACEMENT_DB_REPLICA_MAX_LAG):
        state = "fresh"
    else:
        state = "lagging"
    _note(state, f" ({float(behind):.3f} s of commits behind)" if state == "lagging" and behind else "")
    return state


def _replica_failed(exc):
    global _down_until
    _down_until = time.monotonic() + DOWN_SECONDS
    # Drop the broken connection now: the next try opens a new one.
    try:
        connections[REPLICA].close()
    except DatabaseError:
        pass
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    _note("down", f": {reason}; reads go to the primary for {DOWN_SECONDS:g} s")


def _note(state, detail):
    """One log line per change of the replica's state in this process."""
    global _last_state
    if state != _last_state:
        _last_state = state
        level = logging.INFO if state == "fresh" else logging.WARNING
        log.log(level, "placement: replica %s%s", state.replace("_", " "), detail)
