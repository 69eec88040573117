"""Reading an upstream OpenStack Placement database (import_upstream).

Only reads: the rows become a portable dump (:mod:`maintenance.dump`),
which :func:`maintenance.loader.load_data` writes.
"""
from __future__ import annotations

from collections import defaultdict

import os_resource_classes
from django.conf import settings

from maintenance.dump import DUMP_FORMAT, DUMP_VERSION, INVENTORY_FIELDS, DumpError


def _connect(url: str):
    """A DB-API connection for ``url`` (SQLAlchemy spellings such as
    upstream's ``mysql+pymysql://`` included)."""
    from placement_core.database import dbapi_connect

    try:
        return dbapi_connect(url)
    except ValueError as exc:
        raise DumpError(str(exc)) from None


def _rows(cursor, sql):
    cursor.execute(sql)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def read_upstream(url: str) -> dict:
    """Read an upstream Placement database into the portable dump shape.

    Upstream keeps only custom resource classes in ``resource_classes``
    (ids from 10000); a standard class's id is its index in
    os-resource-classes' STANDARDS list.
    """
    conn = _connect(url)
    try:
        cur = conn.cursor()
        rcs = {i: name for i, name in enumerate(os_resource_classes.STANDARDS)}
        rcs.update({r["id"]: r["name"] for r in _rows(cur, "SELECT id, name FROM resource_classes")})
        traits = {r["id"]: r["name"] for r in _rows(cur, "SELECT id, name FROM traits")}
        aggs = {r["id"]: r["uuid"] for r in _rows(cur, "SELECT id, uuid FROM placement_aggregates")}
        projects = {r["id"]: r["external_id"]
                    for r in _rows(cur, "SELECT id, external_id FROM projects")}
        users = {r["id"]: r["external_id"] for r in _rows(cur, "SELECT id, external_id FROM users")}
        ctypes = {r["id"]: r["name"] for r in _rows(cur, "SELECT id, name FROM consumer_types")}
        rps = _rows(cur, "SELECT id, uuid, name, generation, root_provider_id, parent_provider_id "
                         "FROM resource_providers ORDER BY id")
        rp_uuid = {r["id"]: r["uuid"] for r in rps}
        invs, rp_traits, rp_aggs = defaultdict(dict), defaultdict(list), defaultdict(list)
        for r in _rows(cur, "SELECT resource_provider_id, resource_class_id, total, reserved, "
                            "min_unit, max_unit, step_size, allocation_ratio FROM inventories"):
            invs[r["resource_provider_id"]][rcs[r["resource_class_id"]]] = {
                f: (float(r[f]) if f == "allocation_ratio" else r[f]) for f in INVENTORY_FIELDS}
        for r in _rows(cur, "SELECT resource_provider_id, trait_id FROM resource_provider_traits"):
            rp_traits[r["resource_provider_id"]].append(traits[r["trait_id"]])
        for r in _rows(cur, "SELECT resource_provider_id, aggregate_id "
                            "FROM resource_provider_aggregates"):
            rp_aggs[r["resource_provider_id"]].append(aggs[r["aggregate_id"]])
        allocs = defaultdict(list)
        for r in _rows(cur, "SELECT resource_provider_id, consumer_id, resource_class_id, used "
                            "FROM allocations ORDER BY id"):
            allocs[r["consumer_id"]].append({
                "resource_provider": rp_uuid[r["resource_provider_id"]],
                "resource_class": rcs[r["resource_class_id"]], "used": r["used"]})
        consumers = []
        for r in _rows(cur, "SELECT uuid, project_id, user_id, generation, consumer_type_id "
                            "FROM consumers ORDER BY id"):
            consumers.append({
                "uuid": r["uuid"], "project": projects[r["project_id"]],
                "user": users[r["user_id"]],
                "consumer_type": ctypes.get(r["consumer_type_id"]),
                "generation": r["generation"], "allocations": allocs.pop(r["uuid"], [])})
    finally:
        conn.close()
    if allocs:
        # Allocations whose consumer row is missing (pre-1.8 data not yet
        # migrated upstream): give them the incomplete project and user.
        for cuuid, items in allocs.items():
            consumers.append({
                "uuid": cuuid, "project": settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID,
                "user": settings.PLACEMENT_INCOMPLETE_CONSUMER_USER_ID, "consumer_type": None,
                "generation": 0, "allocations": items})
    return {
        "format": DUMP_FORMAT, "version": DUMP_VERSION,
        "resource_classes": sorted(n for n in rcs.values() if n.startswith("CUSTOM_")),
        "traits": sorted(n for n in traits.values() if n.startswith("CUSTOM_")),
        "aggregates": list(aggs.values()),
        "projects": list(projects.values()), "users": list(users.values()),
        "consumer_types": list(ctypes.values()),
        "resource_providers": [
            {"uuid": r["uuid"], "name": r["name"], "generation": r["generation"],
             "parent": rp_uuid.get(r["parent_provider_id"]),
             "root": rp_uuid.get(r["root_provider_id"]),
             "inventories": invs.get(r["id"], {}), "traits": rp_traits.get(r["id"], []),
             "aggregates": rp_aggs.get(r["id"], [])}
            for r in rps
        ],
        "consumers": consumers,
    }
