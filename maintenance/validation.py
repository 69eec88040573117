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
from placement_core.uuids import normalize_uuid
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


# What each list of a dump holds: (key, what an item must be).
_TOP_LISTS = ("resource_classes", "traits", "aggregates", "projects", "users", "consumer_types",
              "resource_providers", "consumers")


def shape_problems(data: dict) -> list[str]:
    """Lists that are not lists, objects that are not objects: the file's
    shape, checked before any row is read."""
    problems = []
    for key in _TOP_LISTS:
        if not isinstance(data.get(key, []), list):
            problems.append(f"{key} must be a list")
    if problems:
        return problems
    for kind, item_keys in (("resource_providers", {"inventories": dict, "traits": list,
                                                    "aggregates": list}),
                            ("consumers", {"allocations": list})):
        for i, row in enumerate(data.get(kind, [])):
            if not isinstance(row, dict):
                problems.append(f"{kind}[{i}] must be an object")
                continue
            for key, kind_of in item_keys.items():
                value = row.get(key)
                if value is not None and not isinstance(value, kind_of):
                    what = "an object" if kind_of is dict else "a list"
                    problems.append(f"{kind}[{i}] ({row.get('uuid')!r}): {key} must be {what}")
            inventories = row.get("inventories")
            for key, value in (inventories.items() if isinstance(inventories, dict) else ()):
                if not isinstance(value, dict):
                    problems.append(f"{kind}[{i}] ({row.get('uuid')!r}): inventories {key!r} "
                                    "must be an object")
            allocations = row.get("allocations")
            for j, alloc in enumerate(allocations if isinstance(allocations, list) else ()):
                if not isinstance(alloc, dict):
                    problems.append(f"{kind}[{i}] ({row.get('uuid')!r}): allocations[{j}] "
                                    "must be an object")
    return problems


def _duplicates(rows, kind, field, key) -> list[str]:
    """Rows naming the same ``field`` (compared by ``key``) as an earlier row."""
    first, problems = {}, []
    for i, row in enumerate(rows):
        value = row.get(field)
        if not isinstance(value, str):
            continue
        seen = first.setdefault(key(value), i)
        if seen != i:
            problems.append(f"{kind}[{i}] ({row.get('uuid')!r}): {field} {value!r} also given "
                            f"by {kind}[{seen}]" if field != "uuid" else
                            f"{kind}[{i}] ({value!r}): uuid also given by {kind}[{seen}]")
    return problems


def dump_problems(data: dict) -> list[str]:
    """Each row that may not be stored, as "where: why"; [] when all may."""
    problems = shape_problems(data)
    if problems:
        return problems
    providers = data.get("resource_providers", [])
    problems += _duplicates(providers, "resource_providers", "uuid",
                            lambda u: normalize_uuid(u) or u)
    problems += _duplicates(providers, "resource_providers", "name", lambda n: n)
    problems += _duplicates(data.get("consumers", []), "consumers", "uuid",
                            lambda u: normalize_uuid(u) or u)

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
    for kind, schema in (("projects", allocation_schemas.EXTERNAL_ID),
                         ("users", allocation_schemas.EXTERNAL_ID),
                         ("consumer_types", allocation_schemas.CONSUMER_TYPE)):
        for value in data.get(kind, []):
            why = _schema_problem(value, schema)
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


# --- the file together with what is stored ---------------------------------------------

from providers.trees import stored_links, tree_problems  # noqa: E402



_IN_BATCH = 1000


def _batches(values):
    values = sorted(values)
    for start in range(0, len(values), _IN_BATCH):
        yield values[start:start + _IN_BATCH]


def state_problems(data: dict) -> tuple[list[str], list[str], dict]:
    """What the database would hold after loading ``data`` (a dump whose
    rows passed :func:`dump_problems`), judged whole: trees, inventory for
    every allocation, capacity.

    Returns (problems, capacity problems, each dumped provider's top of
    tree). Capacity problems are kept apart: ``--allow-over-capacity``
    lets them through.
    """
    from allocations.models import Allocation
    from providers.models import Inventory, capacity_of

    providers = data.get("resource_providers", [])
    consumers = data.get("consumers", [])
    row_of = {rp["uuid"]: i for i, rp in enumerate(providers)}

    def where(uuid):
        if uuid in row_of:
            return f"resource_providers[{row_of[uuid]}] ({uuid!r})"
        return f"provider {uuid!r} (in the database)"

    links = stored_links()
    for rp in providers:
        links[rp["uuid"]] = (rp.get("parent"), rp.get("root"))
    problems, top = tree_problems(links, where)

    # Inventories after the load: the file's for its providers, the stored
    # ones for providers it only allocates on.
    dumped_consumers = {c["uuid"] for c in consumers}
    allocated_on = {a["resource_provider"] for c in consumers for a in c.get("allocations", [])}
    inventory = {}
    for rp in providers:
        for rc, fields in (rp.get("inventories") or {}).items():
            inventory[(rp["uuid"], rc)] = capacity_of(
                fields["total"], fields.get("reserved", 0), fields.get("allocation_ratio", 1.0))
    outside = allocated_on - row_of.keys()
    for chunk in _batches(outside):
        for rp, rc, total, reserved, ratio in Inventory.objects.filter(
                resource_provider__uuid__in=chunk).values_list(
                "resource_provider__uuid", "resource_class__name", "total", "reserved",
                "allocation_ratio"):
            inventory[(rp, rc)] = capacity_of(total, reserved, ratio)
    for rp in outside:
        if rp not in links:
            problems.append(f"provider {rp!r}: allocated on by the file, but neither in the "
                            "file nor stored")

    used, holders = {}, {}
    for i, consumer in enumerate(consumers):
        for j, alloc in enumerate(consumer.get("allocations", [])):
            key = (alloc["resource_provider"], alloc["resource_class"])
            if key not in inventory and key[0] in links:
                problems.append(f"consumers[{i}] ({consumer['uuid']!r}) allocations[{j}]: "
                                f"provider {key[0]!r} has no {key[1]} inventory")
            used[key] = used.get(key, 0) + alloc["used"]
            holders.setdefault(key, []).append(consumer["uuid"])
    # What stored consumers the file leaves alone keep holding there.
    for chunk in _batches(row_of.keys() | allocated_on):
        for consumer, rp, rc, amount in Allocation.objects.filter(
                resource_provider__uuid__in=chunk).values_list(
                "consumer__uuid", "resource_provider__uuid", "resource_class__name", "used"):
            if consumer in dumped_consumers:
                continue
            key = (rp, rc)
            if key not in inventory:
                problems.append(f"consumer {consumer} (in the database) allocates {amount} {rc} "
                                f"on provider {rp!r}, which has no {rc} inventory in the file")
            used[key] = used.get(key, 0) + amount
    over = []
    for key, amount in sorted(used.items()):
        capacity = inventory.get(key)
        if capacity is not None and amount > capacity:
            rp, rc = key
            at = f" (resource_providers[{row_of[rp]}])" if rp in row_of else " (in the database)"
            shown = ", ".join(holders.get(key, [])[:3]) or "none"
            over.append(f"provider {rp!r} {rc}{at}: allocations would hold {amount} against a "
                        f"capacity of {capacity} ((total - reserved) x allocation_ratio); "
                        f"consumers of the file there: {shown}")
    return problems, over, {u: top.get(u) for u in row_of}
