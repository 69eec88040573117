"""The locking protocol: every row lock, generation check and generation
bump of providers and consumers, and the transaction that retries a write
which lost a race.  Read it whole before changing any writer.

The rules (docs/design.md section 4, docs/architecture.md "Locking protocol"):

1. Lock the provider rows a write will change, in one pass, in id order
   (:func:`lock_providers`, or :func:`lock_provider` for one): two writers
   never wait on each other in a cycle.  This module holds the only
   ``FOR UPDATE`` on providers and consumers.
2. Consumers are locked after providers, in uuid order
   (:func:`lock_consumers`; a new consumer's uuid is known before its row
   exists, so creating and locking follow one order).
3. Under the locks, compare the generation the client saw
   (:func:`check_provider_generation`, :func:`check_consumer_generation`);
   after writing, add to it (:func:`bump_generations`, the only generation
   bump of providers and consumers).
4. An allocation write runs in :func:`run_with_retries`: its own outermost
   transaction, started again when it raises :class:`LostRace` or the
   database reports a lost race, up to ``[placement]
   allocation_conflict_retry_count`` times, then a 409.
"""
import logging
import random
import time

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from placement_core import errors
from placement_core.database import placeholders
from placement_core.uuids import normalize_uuid
from providers.models import ResourceProvider

LOG = logging.getLogger(__name__)

# --- provider row locks ----------------------------------------------------


# What writers read of a provider they lock.  The timestamps are left out
# (none of them reads those; they load on first use if one ever does):
# plain values need no conversion, so the rows become instances at once.
LOCKED_FIELDS = ("id", "uuid", "name", "generation", "parent_id", "root_id")
# Their columns (upstream's names: parent_provider_id, root_provider_id).
_COLUMNS = {f.attname: f.column for f in ResourceProvider._meta.concrete_fields}
LOCKED_COLUMNS = ", ".join(_COLUMNS[name] for name in LOCKED_FIELDS)


def _locked(where: str, params) -> list:
    """The providers matching ``where``, locked, in id order.

    Written out rather than built by the ORM: the claim, Nova's hot write,
    takes this lock on every boot.  Always on the primary (a replica is
    only for bulk reads).  SQLite has no row locks: its writers queue on
    the database lock (``BEGIN IMMEDIATE``).
    """
    if not connection.in_atomic_block:
        raise RuntimeError("provider locks are taken inside transaction.atomic()")
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {LOCKED_COLUMNS} FROM resource_providers "
                       f"WHERE {where} ORDER BY id{lock}", params)
        rows = cursor.fetchall()
    return [ResourceProvider.from_db(DEFAULT_DB_ALIAS, LOCKED_FIELDS, row) for row in rows]


def lock_providers(provider_ids) -> dict:
    """Lock the providers (by id, in id order); ``{id: provider}`` of those that exist."""
    ids = sorted(set(provider_ids))
    if not ids:
        return {}
    return {row.pk: row for row in _locked(f"id IN ({placeholders(ids)})", ids)}


def lock_provider(uuid):
    """Lock the one provider stored under exactly ``uuid``; None when there is none."""
    rows = _locked("uuid = %s", [uuid])
    return rows[0] if rows else None


def lock_provider_by_uuid(uuid):
    """Lock one provider by its uuid as written; 404 when it does not exist
    (without Vary: upstream's writers fail this look-up outside their
    handlers, where the header is added).  Anything that is not a uuid is
    a 404 without a query (a NUL byte would be a database error)."""
    provider = lock_provider(uuid) if normalize_uuid(uuid) is not None else None
    if provider is None:
        raise errors.NotFound(f"No resource provider with uuid {uuid} found", vary=False)
    return provider


def lock_consumers(rows) -> list:
    """Lock the consumers of ``rows`` (a queryset of consumers: their model
    lives above this app) in uuid order, after any provider lock; the
    locked rows."""
    return list(rows.select_for_update().order_by("uuid"))


# --- generations -----------------------------------------------------------

GENERATION_CONFLICT = (
    "resource provider generation conflict: resource provider {uuid} "
    "has generation {actual}, the request named {given}. "
    "Please update the resource provider and try again."
)


def check_provider_generation(provider, generation, message=GENERATION_CONFLICT):
    """409 placement.concurrent_update unless the client saw the current generation.

    ``message`` is the error detail, a ``str.format`` template that may use
    ``{uuid}`` (the provider's), ``{actual}`` (its generation) and
    ``{given}`` (the client's); endpoints word the conflict differently.
    """
    if generation != provider.generation:
        raise errors.Conflict(
            message.format(uuid=provider.uuid, actual=provider.generation, given=generation),
            code=errors.CONCURRENT_UPDATE,
        )


def check_consumer_generation(given, current):
    """409 placement.concurrent_update unless the client's consumer
    generation ``given`` is the stored one, ``current`` (None: the consumer
    does not exist yet, and the client must say null)."""
    if given == current:
        return
    expected = "null" if current is None else current
    got = "null" if given is None else given
    raise errors.Conflict(f"consumer generation conflict - expected {expected} but got {got}",
                          code=errors.CONCURRENT_UPDATE)


def bump_generations(rows, *, step=1, touch=False) -> None:
    """Add ``step`` to the generation of each of ``rows`` (locked providers,
    or locked consumers: instances of one model), in one statement and in
    memory.  ``touch`` stamps ``updated_at`` too (consumers, whose
    generation is their last change; a provider's bump leaves it)."""
    rows = list({id(row): row for row in rows}.values())
    if not rows:
        return
    ids = sorted({row.pk for row in rows})
    stamp, params = "", [step]
    if touch:
        stamp = ", updated_at = %s"
        params.append(connection.ops.adapt_datetimefield_value(timezone.now()))
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {type(rows[0])._meta.db_table} SET generation = generation + %s"
                       f"{stamp} WHERE id IN ({placeholders(ids)})", params + ids)
    for row in rows:
        row.generation += step


# --- transactions ----------------------------------------------------------


class LostRace(Exception):
    """Rows moved between a write's unlocked read and its locks: run it again."""


def run_with_retries(work, what: str):
    """Run ``work()`` in a transaction, again after a lost race; 409 when they run out.

    The transaction is the outermost (``durable=True``): folded into a
    caller's, a retry would start from a half-done state.
    """
    attempts = max(0, settings.PLACEMENT_ALLOCATION_CONFLICT_RETRY_COUNT) + 1
    last = None
    for attempt in range(attempts):
        try:
            with transaction.atomic(durable=True):
                return work()
        except LostRace as exc:
            last = exc
        except IntegrityError as exc:
            # A row we referred to vanished, or a unique insert lost; the
            # next attempt re-reads everything.
            last = exc
        except DatabaseError as exc:
            if errors.database_trouble(exc) not in (errors.DB_LOST_RACE, errors.DB_NOT_READY):
                raise
            last = exc
        LOG.debug("%s: lost a race (attempt %d of %d): %s", what, attempt + 1, attempts, last)
        # Our locks are released: a jittered pause lets the winner finish.
        # It doubles with each loss (up to 16 times the first) so that on a
        # loaded machine, where the winner runs slowly, the retries do not
        # all land while it still holds its locks.
        time.sleep(random.uniform(0, 0.005) * 2 ** min(attempt, 4))
    raise errors.Conflict(
        f"Inventory and/or allocations changed while attempting to allocate: {what} "
        "could not complete because other writers kept changing the same providers or "
        "consumers. Please try again.",
        code=errors.CONCURRENT_UPDATE,
    )


def get_or_create_by_name(model, field_name, value):
    """Get a row by its unique name, creating it; safe against concurrent creators."""
    lookup = {field_name: value}
    row = model.objects.filter(**lookup).first()
    if row is not None:
        return row
    try:
        with transaction.atomic():
            return model.objects.create(**lookup)
    except IntegrityError:
        # A concurrent writer inserted the same name; our INSERT waited for it
        # to commit, so (READ COMMITTED) the row is now visible: read it back.
        return model.objects.get(**lookup)
