"""Moving a database of this service's earlier schema onto upstream's tables.

Before it took upstream's schema (placement_core.shared_schema) this service
kept the same twelve tables under its own layout: bigint keys, ``parent_id``
/ ``root_id``, allocations naming their consumer by its row id, link tables
with an ``id`` column, resource class ids in creation order.  The migration
``allocations.0008_shared_schema`` calls ``move_to_shared_schema``: every
row is copied aside, the old tables dropped, upstream's created and the rows
copied back, translated.  Ids are kept, except resource classes', which take
upstream's numbering (a standard class's index in os-resource-classes'
STANDARDS, custom ones from 10000 in their old order); inventories and
allocations follow them.

On a database upstream made (``alembic_version`` present) nothing is
copied: the tables are upstream's already.  At another upstream revision
than the one this service speaks, the migration stops before writing.
"""
import os_resource_classes

from placement_core import shared_schema

# (table, the new table's columns, the SELECT over the copy "o" that fills them).
_COPIES = (
    ("traits", "created_at, updated_at, id, name", "o.created_at, o.updated_at, o.id, o.name"),
    ("placement_aggregates", "created_at, updated_at, id, uuid",
     "o.created_at, o.updated_at, o.id, o.uuid"),
    ("projects", "created_at, id, external_id", "o.created_at, o.id, o.external_id"),
    ("users", "created_at, id, external_id", "o.created_at, o.id, o.external_id"),
    ("consumer_types", "created_at, id, name", "o.created_at, o.id, o.name"),
    ("resource_providers",
     "created_at, updated_at, id, uuid, name, generation, root_provider_id, parent_provider_id",
     "o.created_at, o.updated_at, o.id, o.uuid, o.name, o.generation, o.root_id, o.parent_id"),
    ("inventories",
     "created_at, updated_at, id, resource_provider_id, resource_class_id, total, reserved, "
     "min_unit, max_unit, step_size, allocation_ratio",
     "o.created_at, o.updated_at, o.id, o.resource_provider_id, m.new_id, o.total, o.reserved, "
     "o.min_unit, o.max_unit, o.step_size, o.allocation_ratio"),
    ("resource_provider_aggregates", "resource_provider_id, aggregate_id",
     "o.resource_provider_id, o.aggregate_id"),
    ("resource_provider_traits", "trait_id, resource_provider_id",
     "o.trait_id, o.resource_provider_id"),
    ("consumers",
     "created_at, updated_at, id, uuid, project_id, user_id, generation, consumer_type_id",
     "o.created_at, o.updated_at, o.id, o.uuid, o.project_id, o.user_id, o.generation, "
     "o.consumer_type_id"),
    ("allocations",
     "created_at, updated_at, id, resource_provider_id, consumer_id, resource_class_id, used",
     "o.created_at, o.updated_at, o.id, o.resource_provider_id, c.uuid, m.new_id, o.used"),
)

# Joins some copies need: the class-id map "m" and the old consumers "c".
_JOINS = {
    "inventories": " JOIN rc_id_map m ON m.old_id = o.resource_class_id",
    "allocations": (" JOIN rc_id_map m ON m.old_id = o.resource_class_id"
                    " JOIN consumers__old c ON c.id = o.consumer_id"),
}


class WrongUpstreamRevision(Exception):
    pass


def check_revision(connection) -> str | None:
    """Upstream's revision in this database (None: not upstream's); refuse any
    other than the one this service speaks."""
    revision = shared_schema.alembic_revision(connection)
    if revision is not None and revision != shared_schema.HEAD:
        raise WrongUpstreamRevision(
            f"this database is at upstream Placement's schema revision {revision or '(none)'}; "
            f"this service needs {shared_schema.HEAD} (upstream 16.0.0): upgrade it with "
            "upstream's own `placement-manage db sync` first, then run this one again")
    return revision


def class_ids(rows) -> dict:
    """{old id: upstream's id} for resource class rows (old id, name)."""
    standard = {name: index for index, name in enumerate(os_resource_classes.STANDARDS)}
    mapping, next_custom = {}, shared_schema.FIRST_CUSTOM_CLASS_ID
    for old_id, name in sorted(rows):
        if name in standard:
            mapping[old_id] = standard[name]
        else:
            mapping[old_id] = next_custom
            next_custom += 1
    return mapping


def move_to_shared_schema(connection) -> None:
    if check_revision(connection) is not None:
        return  # upstream's tables, as upstream made them
    with connection.cursor() as cursor:
        if connection.vendor == "mysql":
            cursor.execute("SET FOREIGN_KEY_CHECKS = 0")
        try:
            _move(connection, cursor)
        finally:
            if connection.vendor == "mysql":
                cursor.execute("SET FOREIGN_KEY_CHECKS = 1")
    shared_schema.reset_sequences(connection)


def _move(connection, cursor):
    for table in shared_schema.TABLES:
        cursor.execute(f"CREATE TABLE {table}__old AS SELECT * FROM {table}")
    for table in reversed(shared_schema.TABLES):
        cursor.execute(f"DROP TABLE {table}")
    shared_schema.create_tables(connection)
    cursor.execute("SELECT id, name, created_at, updated_at FROM resource_classes__old")
    classes = cursor.fetchall()
    mapping = class_ids([(row[0], row[1]) for row in classes])
    cursor.execute("CREATE TABLE rc_id_map (old_id bigint NOT NULL, new_id integer NOT NULL)")
    if classes:
        with shared_schema.zero_is_an_id(connection):
            cursor.executemany(
                "INSERT INTO resource_classes (created_at, updated_at, id, name) "
                "VALUES (%s, %s, %s, %s)",
                [(created, updated, mapping[old], name) for old, name, created, updated in classes])
        cursor.executemany("INSERT INTO rc_id_map (old_id, new_id) VALUES (%s, %s)",
                           sorted(mapping.items()))
    for table, columns, select in _COPIES:
        cursor.execute(f"INSERT INTO {table} ({columns}) SELECT {select} "
                       f"FROM {table}__old o{_JOINS.get(table, '')}")
    for table in reversed(shared_schema.TABLES):
        cursor.execute(f"DROP TABLE {table}__old")
    cursor.execute("DROP TABLE rc_id_map")
