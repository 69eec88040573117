"""The allocation write's hot statements, with their SQL written out.

A claim (``PUT /allocations/{new consumer}``, which Nova sends on every
boot) costs mostly round trips to the database and the ORM's building of
each statement (about a third of a millisecond each for the provider lock,
the allocation insert, the generation bump and the history insert, as
much as the statement itself on loopback). Two reads here replace eight
of the ORM's, and three writes take no ORM building:

- :func:`lookup`: every name the write refers to (provider uuids, resource
  class names, project and user ids, consumer types, the consumers and the
  providers they hold allocations on), one indexed lookup per kind in a
  single ``UNION ALL``. It runs before any row lock; the writer re-checks
  what matters under its locks.
- :func:`inventories_with_usage`: the inventories the write draws on, each
  with what is allocated against it now, for the capacity check under the
  provider locks.
- :func:`held_allocations`: what the write's existing consumers hold now
  (which providers to have locked, what an over-capacity provider held).
- :func:`lock_allocations`: the existing consumers' allocation rows, locked
  before the providers (upstream's writers' order, for a shared database).
- :func:`insert_consumers`, :func:`insert_allocations`, :func:`insert_changes`:
  the write's plain inserts.  Its provider lock and generation bump are
  ``providers.locking``'s, written out in SQL there too.

Values are compared as the database compares them: under MySQL's
case-insensitive collations a project id may come back spelled differently
from the request, so the caller treats a name missing from the answer as
"look it up again the slow way", never as "create it blindly".
"""
from dataclasses import dataclass, field

from django.db import connection
from django.utils import timezone

from placement_core.database import placeholders
from providers.models import capacity_of


@dataclass
class Names:
    """What :func:`lookup` found: ``{name: id}`` per kind; ``held`` is the
    ids of the providers the found consumers hold allocations on."""

    providers: dict = field(default_factory=dict)
    classes: dict = field(default_factory=dict)
    projects: dict = field(default_factory=dict)
    users: dict = field(default_factory=dict)
    types: dict = field(default_factory=dict)
    consumers: dict = field(default_factory=dict)
    held: set = field(default_factory=set)


# kind -> (table, key column): the plain lookups of lookup().
_PLAIN = {
    "providers": ("resource_providers", "uuid"),
    "classes": ("resource_classes", "name"),
    "projects": ("projects", "external_id"),
    "users": ("users", "external_id"),
    "types": ("consumer_types", "name"),
    "consumers": ("consumers", "uuid"),
}


def lookup(*, consumers, providers=(), classes=(), projects=(), users=(), types=()) -> Names:
    """Ids of everything named, in one statement (names not found are absent).

    SELECT 'providers', id, uuid FROM resource_providers WHERE uuid IN (:providers)
    UNION ALL SELECT 'classes', id, name FROM resource_classes WHERE name IN (:classes)
    UNION ALL ... projects, users, consumer_types, consumers alike ...
    UNION ALL SELECT 'held', a.resource_provider_id, a.consumer_id FROM allocations a
              WHERE a.consumer_id IN (:consumers)
    """
    wanted = {"providers": providers, "classes": classes, "projects": projects,
              "users": users, "types": types, "consumers": consumers}
    parts, params = [], []
    for kind, values in wanted.items():
        values = sorted(set(values))
        if not values:
            continue
        table, key = _PLAIN[kind]
        parts.append(f"SELECT '{kind}', id, {key} FROM {table} "
                     f"WHERE {key} IN ({placeholders(values)})")
        params += values
    uuids = sorted(set(consumers))
    # allocations.consumer_id is the consumer's uuid (upstream's schema).
    parts.append("SELECT 'held', a.resource_provider_id, a.consumer_id FROM allocations a "
                 f"WHERE a.consumer_id IN ({placeholders(uuids)})")
    params += uuids
    found = Names()
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        for kind, pk, name in cursor.fetchall():
            if kind == "held":
                found.held.add(pk)
            else:
                getattr(found, kind)[name] = pk
    return found


@dataclass(frozen=True)
class Drawable:
    """One inventory as the capacity check needs it, with its current usage."""

    min_unit: int
    max_unit: int
    step_size: int
    capacity: int
    used: int


def inventories_with_usage(provider_ids, class_ids) -> dict:
    """``{(provider id, class id): Drawable}`` for the inventories of those
    providers in those classes (a pair without inventory is absent).

    SELECT i.resource_provider_id, i.resource_class_id, i.min_unit, i.max_unit,
           i.step_size, i.total, i.reserved, i.allocation_ratio,
           (SELECT COALESCE(SUM(a.used), 0) FROM allocations a
            WHERE a.resource_provider_id = i.resource_provider_id
              AND a.resource_class_id = i.resource_class_id)
    FROM inventories i
    WHERE i.resource_provider_id IN (:providers) AND i.resource_class_id IN (:classes)
    """
    provider_ids, class_ids = sorted(set(provider_ids)), sorted(set(class_ids))
    if not provider_ids or not class_ids:
        return {}
    sql = (
        "SELECT i.resource_provider_id, i.resource_class_id, i.min_unit, i.max_unit, "
        "i.step_size, i.total, i.reserved, i.allocation_ratio, "
        "(SELECT COALESCE(SUM(a.used), 0) FROM allocations a "
        "WHERE a.resource_provider_id = i.resource_provider_id "
        "AND a.resource_class_id = i.resource_class_id) "
        "FROM inventories i "
        f"WHERE i.resource_provider_id IN ({placeholders(provider_ids)}) "
        f"AND i.resource_class_id IN ({placeholders(class_ids)})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, provider_ids + class_ids)
        rows = cursor.fetchall()
    return {
        (rp, rc): Drawable(min_unit, max_unit, step_size,
                           capacity_of(total, reserved, allocation_ratio), int(used))
        for rp, rc, min_unit, max_unit, step_size, total, reserved, allocation_ratio, used
        in rows
    }


def held_allocations(consumer_uuids) -> list:
    """(consumer uuid, provider id, class id, used) of every allocation the
    consumers hold.

    SELECT consumer_id, resource_provider_id, resource_class_id, used
    FROM allocations WHERE consumer_id IN (:uuids)
    """
    ids = sorted(set(consumer_uuids))
    if not ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute("SELECT consumer_id, resource_provider_id, resource_class_id, used "
                       f"FROM allocations WHERE consumer_id IN ({placeholders(ids)})", ids)
        return cursor.fetchall()


def lock_allocations(consumer_uuids) -> None:
    """Lock the consumers' allocation rows, before any provider.

    Upstream Placement's writers start by deleting a consumer's allocations
    and bump provider generations afterwards; a writer here that locked the
    providers first could deadlock with one of upstream's on a shared
    database.  Taking the consumer's rows first keeps one lock order for both.

    SELECT id FROM allocations WHERE consumer_id IN (:uuids) ORDER BY id FOR UPDATE
    """
    uuids = sorted(set(consumer_uuids))
    if not uuids or not connection.features.has_select_for_update:
        return
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM allocations WHERE consumer_id IN ({placeholders(uuids)}) "
                       "ORDER BY id FOR UPDATE", uuids)
        cursor.fetchall()


def _now():
    """The current time as this database's driver takes a datetime column."""
    return connection.ops.adapt_datetimefield_value(timezone.now())


def _insert(table: str, columns, rows) -> None:
    """One multi-row INSERT of ``rows`` (tuples in ``columns`` order), in
    batches as small as the backend needs (SQLite caps the parameters of a
    statement)."""
    if not rows:
        return
    one = "(" + ", ".join(["%s"] * len(columns)) + ")"
    head = f"INSERT INTO {table} ({', '.join(columns)}) VALUES "
    size = max(1, connection.ops.bulk_batch_size(columns, rows))
    with connection.cursor() as cursor:
        for start in range(0, len(rows), size):
            batch = rows[start:start + size]
            cursor.execute(head + ", ".join([one] * len(batch)),
                           [value for row in batch for value in row])


def insert_consumers(rows) -> None:
    """Insert consumer rows: (uuid, project id, user id, consumer type id, generation).

    INSERT INTO consumers (uuid, project_id, user_id, consumer_type_id,
        generation, created_at, updated_at) VALUES (...), ...
    """
    now = _now()
    _insert("consumers", ("uuid", "project_id", "user_id", "consumer_type_id", "generation",
                          "created_at", "updated_at"),
            [(*row, now, now) for row in rows])


def insert_allocations(rows) -> None:
    """Insert allocation rows: (consumer uuid, provider id, class id, used).

    INSERT INTO allocations (consumer_id, resource_provider_id,
        resource_class_id, used, created_at, updated_at) VALUES (...), ...
    """
    now = _now()
    _insert("allocations", ("consumer_id", "resource_provider_id", "resource_class_id", "used",
                            "created_at", "updated_at"),
            [(*row, now, now) for row in rows])


# operations.models.AllocationChange's columns, in the order of insert_changes' rows.
CHANGE_COLUMNS = (
    "consumer_uuid", "provider_uuid", "resource_class", "amount_before", "amount_after",
    "consumer_generation", "request_id", "global_request_id", "user_id", "project_id",
    "microversion", "source", "owner_change", "event",
)


def insert_changes(rows) -> None:
    """Insert history rows (values of CHANGE_COLUMNS), all created now.

    INSERT INTO allocation_changes (<CHANGE_COLUMNS>, created_at) VALUES (...), ...
    """
    now = _now()
    _insert("allocation_changes", (*CHANGE_COLUMNS, "created_at"), [(*row, now) for row in rows])
