"""Upstream's tables as the database catalog describes them, and their rows.

``definition(db)`` reads information_schema (and pg_indexes on PostgreSQL)
for the tables upstream 16.0.0's ``db sync`` creates: every column (type,
length, nullability, default, identity), every index (name, columns,
uniqueness), every constraint (name, type, columns, referenced table and
columns).  Two databases with the same definition are the same schema to
upstream's code.  ``rows(db)`` dumps those tables' rows, ordered, to show a
command changed nothing.
"""
UPSTREAM_TABLES = (
    "alembic_version", "allocations", "consumer_types", "consumers", "inventories",
    "placement_aggregates", "projects", "resource_classes", "resource_provider_aggregates",
    "resource_provider_traits", "resource_providers", "traits", "users",
)


def _marks(db, values):
    mark = "%s"
    return ", ".join([mark] * len(values))


def _schema_filter(db):
    if db.backend == "postgres":
        return "table_schema = 'public'", ()
    return "table_schema = %s", (db.name,)


def tables(db):
    where, params = _schema_filter(db)
    return sorted(r[0] for r in db.query(
        f"SELECT table_name FROM information_schema.tables WHERE {where}", params))


def definition(db):
    where, params = _schema_filter(db)
    names = UPSTREAM_TABLES
    in_tables = f"table_name IN ({_marks(db, names)})"
    columns = db.query(
        "SELECT table_name, column_name, data_type, column_type_detail, is_nullable, "
        "column_default, extra FROM ("
        + (_PG_COLUMNS if db.backend == "postgres" else _MY_COLUMNS)
        + f") c WHERE {where} AND {in_tables} ORDER BY table_name, column_name",
        params + names)
    constraints = db.query(
        "SELECT tc.table_name, tc.constraint_name, tc.constraint_type, kcu.column_name, "
        "kcu.ordinal_position, " + _REFERENCED[db.backend] + " "
        "FROM information_schema.table_constraints tc "
        "LEFT JOIN information_schema.key_column_usage kcu "
        "ON kcu.constraint_name = tc.constraint_name AND kcu.table_name = tc.table_name "
        "AND kcu.table_schema = tc.table_schema "
        + _REFERENCED_JOIN[db.backend]
        + f"WHERE tc.{where} AND tc.{in_tables} "
        # PostgreSQL lists each NOT NULL as a CHECK named after OIDs: the
        # columns' nullability already says it.
        "AND NOT (tc.constraint_type = 'CHECK' AND tc.constraint_name LIKE '%%_not_null') "
        "ORDER BY 1, 2, 5", params + names)
    if db.backend == "postgres":
        indexes = db.query(
            "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' "
            f"AND tablename IN ({_marks(db, names)}) ORDER BY 1, 2", names)
    else:
        indexes = db.query(
            "SELECT table_name, index_name, non_unique, seq_in_index, column_name, sub_part "
            f"FROM information_schema.statistics WHERE {where} AND {in_tables} "
            "ORDER BY 1, 2, 4", params + names)
    return {"columns": columns, "constraints": constraints, "indexes": indexes}


_PG_COLUMNS = (
    "SELECT table_schema, table_name, column_name, data_type, "
    "concat_ws(',', character_maximum_length, numeric_precision, datetime_precision) "
    "AS column_type_detail, is_nullable, column_default, is_identity AS extra "
    "FROM information_schema.columns")
_MY_COLUMNS = (
    "SELECT table_schema, table_name, column_name, data_type, column_type "
    "AS column_type_detail, is_nullable, column_default, "
    "concat_ws(',', extra, character_set_name, collation_name) AS extra "
    "FROM information_schema.columns")
_REFERENCED = {
    "postgres": "ccu.table_name, ccu.column_name",
    "mysql": "kcu.referenced_table_name, kcu.referenced_column_name",
}
_REFERENCED_JOIN = {
    "postgres": ("LEFT JOIN information_schema.constraint_column_usage ccu "
                 "ON tc.constraint_type = 'FOREIGN KEY' "
                 "AND ccu.constraint_name = tc.constraint_name "
                 "AND ccu.constraint_schema = tc.constraint_schema "),
    "mysql": "",
}


def rows(db):
    """Every row of every upstream table present, ordered by all its columns."""
    present = set(tables(db))
    dump = {}
    for table in UPSTREAM_TABLES:
        if table in present:
            dump[table] = sorted(db.query(f"SELECT * FROM {table}"), key=repr)
    return dump


def differences(left, right):
    """Lines naming what is in one definition and not the other."""
    lines = []
    for part in ("columns", "constraints", "indexes"):
        a, b = set(left[part]), set(right[part])
        lines += [f"{part} only upstream: {row}" for row in sorted(a - b, key=repr)]
        lines += [f"{part} only here:     {row}" for row in sorted(b - a, key=repr)]
    return lines
