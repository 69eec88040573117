"""Every row of a dump checked by the rules the API applies, before a load
writes anything: the same JSON Schemas (provider names, inventory records,
project/user ids, consumer types, allocation amounts) and the same
inventory rule the services use (reserved within total, min_unit within
max_unit), plus names the catalog knows or may hold (standard or CUSTOM_).
"""
from __future__ import annotations

import re

import jsonschema
import os_resource_classes
import os_traits

from allocations.api import schemas as allocation_schemas
from placement_site.uuids import normalize_uuid
from providers.api import inventory_schemas, schemas as provider_schemas
from providers.inventory_services import inventory_problem
from resource_classes.api.schemas import CUSTOM_NAME_PATTERN
from resource_classes.models import ResourceClass, Trait


_CUSTOM = re.compile(CUSTOM_NAME_PATTERN)
_USED = {"type": "integer", "minimum": 1, "maximum": allocation_schemas.MAX_INT}
_GENERATION = {"type": "integer", "minimum": 0, "maximum": allocation_schemas.MAX_INT}
# Shown per refused file: enough to fix it, not a flood.
MAX_SHOWN = 20


def _schema_problem(value, schema) -> str | None:
    """The first rule ``value`` breaks, naming the field (the API's schemas
    are Draft 4, as upstream's)."""
    error = jsonschema.exceptions.best_match(jsonschema.Draft4Validator(schema).iter_errors(value))
    if error is None:
        return None
    field = ".".join(str(p) for p in error.absolute_path)
    return f"{field}: {error.message}" if field else error.message


def _known_names(model, standard) -> set[str]:
    return set(standard) | set(model.objects.values_list("name", flat=True))


def dump_problems(data: dict) -> list[str]:
    """Each row that may not be stored, as "where: why"; [] when all may."""
    problems: list[str] = []

    def bad(where, why):
        problems.append(f"{where}: {why}")

    classes = _known_names(ResourceClass, os_resource_classes.STANDARDS)
    traits = _known_names(Trait, os_traits.get_traits())

    def check_class(where, name):
        if not isinstance(name, str) or not (name in classes or _CUSTOM.match(name)):
            bad(where, f"unknown resource class {name!r} (not standard, not CUSTOM_...)")

    def check_uuid(where, value):
        if normalize_uuid(value) is None:
            bad(where, f"{value!r} is not a uuid")

    for name in data.get("resource_classes", []):
        check_class(f"resource_classes {name!r}", name)
    for name in data.get("traits", []):
        if not isinstance(name, str) or not (name in traits or _CUSTOM.match(name)):
            bad(f"traits {name!r}", "unknown trait (not standard, not CUSTOM_...)")
    for value in data.get("aggregates", []):
        check_uuid("aggregates", value)
    for kind in ("projects", "users"):
        for value in data.get(kind, []):
            why = _schema_problem(value, allocation_schemas.EXTERNAL_ID)
            if why:
                bad(f"{kind} {value!r}", why)

    for i, rp in enumerate(data.get("resource_providers", [])):
        where = f"resource_providers[{i}] ({rp.get('uuid')!r})"
        check_uuid(where, rp.get("uuid"))
        why = _schema_problem(rp.get("name"), {**provider_schemas.NAME, "minLength": 1})
        if why:
            bad(where, f"name {why}")
        why = _schema_problem(rp.get("generation", 0), _GENERATION)
        if why:
            bad(where, f"generation {why}")
        for link in ("parent", "root"):
            if rp.get(link) is not None:
                check_uuid(f"{where} {link}", rp[link])
        for rc, fields in (rp.get("inventories") or {}).items():
            at = f"{where} inventory {rc!r}"
            check_class(at, rc)
            record = dict(fields)
            record.setdefault("max_unit", record.get("total"))
            why = _schema_problem(record, inventory_schemas.INVENTORY_RECORD)
            why = why or inventory_problem(record)
            if why:
                bad(at, why)
        for name in rp.get("traits", []):
            if not isinstance(name, str) or not (name in traits or _CUSTOM.match(name)):
                bad(f"{where} trait {name!r}", "unknown trait (not standard, not CUSTOM_...)")
        for value in rp.get("aggregates", []):
            check_uuid(f"{where} aggregate", value)

    for i, consumer in enumerate(data.get("consumers", [])):
        where = f"consumers[{i}] ({consumer.get('uuid')!r})"
        check_uuid(where, consumer.get("uuid"))
        for field in ("project", "user"):
            why = _schema_problem(consumer.get(field), allocation_schemas.EXTERNAL_ID)
            if why:
                bad(where, f"{field} {why}")
        if consumer.get("consumer_type") is not None:
            why = _schema_problem(consumer["consumer_type"], allocation_schemas.CONSUMER_TYPE)
            if why:
                bad(where, f"consumer_type {why}")
        why = _schema_problem(consumer.get("generation", 0), _GENERATION)
        if why:
            bad(where, f"generation {why}")
        for j, alloc in enumerate(consumer.get("allocations", [])):
            at = f"{where} allocations[{j}]"
            check_uuid(at, alloc.get("resource_provider"))
            check_class(at, alloc.get("resource_class"))
            why = _schema_problem(alloc.get("used"), _USED)
            if why:
                bad(at, f"used {why}")
    return problems
