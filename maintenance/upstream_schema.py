"""Is this database upstream Placement's?  ``db sync`` asks before it writes.

Upstream's schema is made by alembic (an ``alembic_version`` table beside
``resource_providers``, ``resource_classes``, ...); this service's tables
carry some of the same names, so migrating such a database would fail
half-way with tables already made.  Until adopting it is supported,
``db sync`` refuses up front and writes nothing.
"""
from __future__ import annotations

# Tables upstream's schema always has (protocol facts: table names).
UPSTREAM_MARKERS = ("alembic_version", "resource_providers", "resource_classes")


def upstream_schema_refusal(connection) -> str | None:
    """Why ``db sync`` must not run on this database, or None."""
    tables = set(connection.introspection.table_names())
    if "alembic_version" not in tables or "django_migrations" in tables:
        return None
    found = ", ".join(t for t in UPSTREAM_MARKERS if t in tables)
    return (f"this database holds upstream Placement's schema ({found}); db sync changes "
            "nothing here. Give this service its own database and copy the data with "
            "`placement-manage import-upstream --database-url URL`")
