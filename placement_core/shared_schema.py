"""The tables this service shares with upstream Placement 16.0.0, as upstream makes them.

Upstream's alembic migrations (head ``a082b8bb98d0``) define thirteen
tables; this service reads and writes them in place, so that upstream and
this service can run on one database, one after the other or side by side.
Their definitions below are upstream's, per database, measured from
databases its own ``placement-manage db sync`` made (column order, types,
nullability, defaults, keys and the names of every index and constraint).
Everything else this service keeps lives in tables of its own.

``create_tables`` makes them on an empty database and stamps
``alembic_version``; ``alembic_revision`` reads the stamp;
``OwnedByUpstream`` wraps the historical migration operations that created
this service's earlier shape of these tables, so that on a database
upstream made they only change Django's state (see docs/databases.md).
"""
import contextlib
from datetime import timezone

from django.db import migrations, models

HEAD = "a082b8bb98d0"

# Upstream's resource class numbering, which both services must share: a
# standard class's id is its index in os-resource-classes' STANDARDS,
# custom ones are numbered from here.
FIRST_CUSTOM_CLASS_ID = 10000

# Parents before children: create in this order, drop in the reverse.
TABLES = (
    "resource_classes", "traits", "placement_aggregates", "projects", "users",
    "consumer_types", "resource_providers", "inventories", "resource_provider_aggregates",
    "resource_provider_traits", "consumers", "allocations",
)

# Tables whose ids come from their sequence (resource classes get theirs
# from os-resource-classes' order, customs from 10000).
SEQUENCED = tuple(t for t in TABLES if t not in (
    "resource_classes", "resource_provider_aggregates", "resource_provider_traits"))

_TS = {"postgresql": "timestamp without time zone", "mysql": "datetime", "sqlite": "DATETIME"}
_INT = {"postgresql": "integer", "mysql": "int(11)", "sqlite": "INTEGER"}
_SERIAL = {"postgresql": "serial", "mysql": "int(11) NOT NULL AUTO_INCREMENT",
           "sqlite": "INTEGER NOT NULL"}
_FLOAT = {"postgresql": "double precision", "mysql": "float", "sqlite": "FLOAT"}

# (table, columns after created_at/updated_at, primary key, unique constraints,
#  foreign keys as (column, parent table, upstream's constraint name on
#  PostgreSQL/SQLite or None for the server's own name)).
_SPEC = (
    ("resource_classes", ["id {serial}", "name varchar(255) NOT NULL"], "id",
     [("uniq_resource_classes0name", "name")], []),
    ("traits", ["id {serial}", "name varchar(255) NOT NULL"], "id",
     [("uniq_traits0name", "name")], []),
    ("placement_aggregates", ["id {serial}", "uuid varchar(36)"], "id",
     [("uniq_placement_aggregates0uuid", "uuid")], []),
    ("projects", ["id {serial}", "external_id varchar(255) NOT NULL"], "id",
     [("uniq_projects0external_id", "external_id")], []),
    ("users", ["id {serial}", "external_id varchar(255) NOT NULL"], "id",
     [("uniq_users0external_id", "external_id")], []),
    ("consumer_types", ["id {serial}", "name varchar(255) NOT NULL"], "id",
     [("uniq_consumer_types0name", "name")], []),
    ("resource_providers",
     ["id {serial}", "uuid varchar(36) NOT NULL", "name varchar(200)", "generation {int}",
      "root_provider_id {int}", "parent_provider_id {int}"], "id",
     [("uniq_resource_providers0uuid", "uuid"), ("uniq_resource_providers0name", "name")],
     [("parent_provider_id", "resource_providers", None),
      ("root_provider_id", "resource_providers", None)]),
    ("inventories",
     ["id {serial}", "resource_provider_id {int} NOT NULL", "resource_class_id {int} NOT NULL",
      "total {int} NOT NULL", "reserved {int} NOT NULL", "min_unit {int} NOT NULL",
      "max_unit {int} NOT NULL", "step_size {int} NOT NULL", "allocation_ratio {float} NOT NULL"],
     "id",
     [("uniq_inventories0resource_provider_resource_class",
       "resource_provider_id, resource_class_id")], []),
    ("resource_provider_aggregates",
     ["resource_provider_id {int} NOT NULL", "aggregate_id {int} NOT NULL"],
     "resource_provider_id, aggregate_id", [], []),
    ("resource_provider_traits",
     ["trait_id {int} NOT NULL", "resource_provider_id {int} NOT NULL"],
     "trait_id, resource_provider_id", [],
     [("resource_provider_id", "resource_providers", None), ("trait_id", "traits", None)]),
    ("consumers",
     ["id {serial}", "uuid varchar(36) NOT NULL", "project_id {int} NOT NULL",
      "user_id {int} NOT NULL", "generation {int} DEFAULT 0 NOT NULL", "consumer_type_id {int}"],
     "id", [("uniq_consumers0uuid", "uuid")],
     [("consumer_type_id", "consumer_types", "consumers_consumer_type_id_fkey")]),
    ("allocations",
     ["id {serial}", "resource_provider_id {int} NOT NULL", "consumer_id varchar(36) NOT NULL",
      "resource_class_id {int} NOT NULL", "used {int} NOT NULL"], "id", [], []),
)

# Upstream's plain indexes: (name, table, columns).
_INDEXES = (
    ("allocations_resource_provider_class_used_idx", "allocations",
     "resource_provider_id, resource_class_id, used"),
    ("allocations_resource_class_id_idx", "allocations", "resource_class_id"),
    ("allocations_consumer_id_idx", "allocations", "consumer_id"),
    ("consumers_project_id_uuid_idx", "consumers", "project_id, uuid"),
    ("consumers_project_id_user_id_uuid_idx", "consumers", "project_id, user_id, uuid"),
    ("consumers_consumer_type_id_idx", "consumers", "consumer_type_id"),
    ("inventories_resource_class_id_idx", "inventories", "resource_class_id"),
    ("resource_provider_aggregates_aggregate_id_idx", "resource_provider_aggregates",
     "aggregate_id"),
    ("resource_provider_traits_resource_provider_trait_idx", "resource_provider_traits",
     "resource_provider_id, trait_id"),
    ("resource_providers_parent_provider_id_idx", "resource_providers", "parent_provider_id"),
    ("resource_providers_root_provider_id_idx", "resource_providers", "root_provider_id"),
)


def _table_sql(vendor, table, columns, pk, uniques, fks, mysql_collation):
    kinds = {"serial": _SERIAL[vendor], "int": _INT[vendor], "float": _FLOAT[vendor]}
    lines = [f"created_at {_TS[vendor]}", f"updated_at {_TS[vendor]}"]
    lines += [c.format(**kinds) for c in columns]
    if vendor == "mysql":
        lines = [line.replace(" DEFAULT 0 NOT NULL", " NOT NULL DEFAULT 0") for line in lines]
        lines = [f"{line} DEFAULT NULL" if "NOT NULL" not in line else line for line in lines]
    if vendor == "sqlite":
        lines = [line.replace("varchar", "VARCHAR") for line in lines]
    lines.append(f"PRIMARY KEY ({pk})")
    lines += [f"CONSTRAINT {name} UNIQUE ({cols})" for name, cols in uniques]
    # On SQLite, checked at commit as Django makes its own foreign keys
    # there: a flush (the test suite's) empties tables in an order of its own.
    deferred = " DEFERRABLE INITIALLY DEFERRED" if vendor == "sqlite" else ""
    for column, parent, name in fks:
        prefix = f"CONSTRAINT {name} " if name else ""
        lines.append(f"{prefix}FOREIGN KEY ({column}) REFERENCES {parent} (id){deferred}")
    tail = ""
    if vendor == "mysql":
        tail = f" ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={mysql_collation}"
    return f"CREATE TABLE {table} (\n    " + ",\n    ".join(lines) + f"\n){tail}"


def statements(vendor, mysql_collation="utf8mb4_general_ci") -> list[str]:
    """The DDL of upstream's tables on ``vendor``, in execution order."""
    out = []
    if vendor == "mysql":
        out.append("CREATE TABLE alembic_version (version_num varchar(32) NOT NULL, "
                   "PRIMARY KEY (version_num)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 "
                   f"COLLATE={mysql_collation}")
    else:
        text = "VARCHAR" if vendor == "sqlite" else "varchar"
        out.append(f"CREATE TABLE alembic_version (version_num {text}(32) NOT NULL, "
                   "CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num))")
    for spec in _SPEC:
        out.append(_table_sql(vendor, *spec, mysql_collation))
    for name, table, columns in _INDEXES:
        out.append(f"CREATE INDEX {name} ON {table} ({columns})")
    return out


def _mysql_collation(cursor) -> str:
    """The collation upstream's tables would get in a database created with the
    server's defaults (this service's own tables compare bytes: utf8mb4_bin)."""
    cursor.execute("SELECT @@character_set_server, @@collation_server")
    charset, collation = cursor.fetchone()
    return collation if charset == "utf8mb4" else "utf8mb4_general_ci"


def create_tables(connection) -> None:
    """Create upstream's tables on an empty database and stamp upstream's head."""
    with connection.cursor() as cursor:
        collation = _mysql_collation(cursor) if connection.vendor == "mysql" else None
        for sql in statements(connection.vendor, collation):
            cursor.execute(sql)
        cursor.execute("INSERT INTO alembic_version (version_num) VALUES (%s)", [HEAD])


def alembic_revision(connection) -> str | None:
    """Upstream's schema revision stamped in this database; None without the table.

    Several rows (alembic branches) read as their sorted, comma-joined list.
    """
    if "alembic_version" not in connection.introspection.table_names():
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT version_num FROM alembic_version")
        return ",".join(sorted(row[0] for row in cursor.fetchall())) or ""


@contextlib.contextmanager
def zero_is_an_id(connection):
    """MariaDB/MySQL: within, an id of 0 (VCPU's) is stored as given, not
    taken as "the next id"."""
    if connection.vendor != "mysql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT @@SESSION.sql_mode")
        (mode,) = cursor.fetchone()
        cursor.execute("SET SESSION sql_mode = %s",
                       [",".join(filter(None, [mode, "NO_AUTO_VALUE_ON_ZERO"]))])
        try:
            yield
        finally:
            cursor.execute("SET SESSION sql_mode = %s", [mode])


def reset_sequences(connection, tables=SEQUENCED) -> None:
    """Move each table's id sequence past its largest id (PostgreSQL; MariaDB
    and SQLite follow explicit ids on their own)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"COALESCE(MAX(id), 0) + 1, false) FROM {table}")


def as_utc(value):
    """One of upstream's timestamps as read from the database, with its zone:
    they hold UTC without one (``timestamp without time zone`` on
    PostgreSQL, where the driver hands back naive datetimes; MariaDB and
    SQLite already read them as UTC). For raw SQL reads as for the models."""
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value


class UTCDateTimeField(models.DateTimeField):
    """Upstream's timestamps (:func:`as_utc`)."""

    def from_db_value(self, value, expression, connection):
        return as_utc(value)


class OwnedByUpstream(migrations.operations.base.Operation):
    """Historical operations on the shared tables: Django's state always
    changes; the database only where upstream's tables are not there yet (a
    database this service made before it took upstream's schema).  On a
    database upstream made they are upstream's already."""

    reduces_to_sql = False

    def __init__(self, operations):
        self.operations = operations
        super().__init__()

    def deconstruct(self):
        return (self.__class__.__qualname__, [self.operations], {})

    def state_forwards(self, app_label, state):
        for operation in self.operations:
            operation.state_forwards(app_label, state)

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if alembic_revision(schema_editor.connection) is not None:
            return
        for operation in self.operations:
            to = from_state.clone()
            operation.state_forwards(app_label, to)
            operation.database_forwards(app_label, schema_editor, from_state, to)
            from_state = to

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        raise NotImplementedError("the shared tables are not migrated backwards")

    def describe(self):
        return "Upstream's tables (state; the database where upstream's are absent)"
