"""The allocation write's two reads, with their SQL written out.

A claim (``PUT /allocations/{new consumer}``, which Nova sends on every
boot) costs mostly round trips to the database and the ORM's building of
each statement. Two statements here replace eight of the ORM's:

- :func:`lookup`: every name the write refers to (provider uuids, resource
  class names, project and user ids, consumer types, the consumers and the
  providers they hold allocations on), one indexed lookup per kind in a
  single ``UNION ALL``. It runs before any row lock; the writer re-checks
  what matters under its locks.
- :func:`inventories_with_usage`: the inventories the write draws on, each
  with what is allocated against it now, for the capacity check under the
  provider locks.

Values are compared as the database compares them: under MySQL's
case-insensitive collations a project id may come back spelled differently
from the request, so the caller treats a name missing from the answer as
"look it up again the slow way", never as "create it blindly".
"""
from dataclasses import dataclass, field

from django.db import connection

from allocations.engine_sql import placeholders
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
    UNION ALL SELECT 'held', a.resource_provider_id, c.uuid
              FROM consumers c JOIN allocations a ON a.consumer_id = c.id
              WHERE c.uuid IN (:consumers)
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
    parts.append("SELECT 'held', a.resource_provider_id, c.uuid FROM consumers c "
                 "JOIN allocations a ON a.consumer_id = c.id "
                 f"WHERE c.uuid IN ({placeholders(uuids)})")
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
