"""Loading a portable dump (load_json, import_upstream): the one place that
writes placement rows without the services.

Why not the services: a dump carries generations, tree links and
allocations exactly as they were, and a load must reproduce them.  The
services exist to do the opposite -- bump generations on every write,
refuse allocations beyond capacity, check parents and in-use rows -- and
they write one provider or consumer per transaction, which for a dump of
thousands of providers is far too slow.  So :func:`load_data` first judges
the whole file by the services' rules (``maintenance.validation``: rows,
trees, inventory and capacity, with what is already stored), then
:func:`bulk_load` writes with ``bulk_create``/``bulk_update`` inside one
transaction.
"""
from __future__ import annotations

import uuid

from django.db import transaction

from allocations import changes
from allocations.models import Allocation, Consumer, ConsumerType, Project, User
from maintenance.dump import DUMP_FORMAT, DUMP_VERSION, INVENTORY_FIELDS, DumpError
from maintenance.validation import MAX_SHOWN, dump_problems, state_problems
from placement_core import request_scope
from providers.models import Aggregate, Inventory, ProviderAggregate, ProviderTrait, ResourceProvider
from resource_classes.models import ResourceClass, Trait
from resource_classes.services import class_insert


class DryRunRollback(Exception):
    """Raised inside a transaction to undo a dry run's writes."""


def load_data(data: dict, *, dry_run: bool = False,
              allow_over_capacity: bool = False,
              source: str = "load_json") -> tuple[dict[str, dict[str, int]], list[str]]:
    """Make the database hold what ``data`` describes; safe to run again.

    Rows are matched by uuid or name.  Providers and consumers present in
    the dump get exactly the dump's inventories, traits, aggregates and
    allocations (generations included); rows not in the dump are left
    alone.  The whole file is judged first, together with what is stored:
    every row by the API's rules, then the trees (no parent cycle, every
    root the top of its tree), an inventory for every allocation and the
    capacity of every provider and class; any problem refuses the file and
    nothing is written.  ``allow_over_capacity`` lets capacity problems
    through (restoring a cloud over-committed on purpose); they are
    returned.  Each amount that changed is recorded in the allocation
    history under ``source`` (the command's name), so a first load leaves
    every consumer's starting record.  Returns (per kind ``{"total": n,
    "created": n, "updated": n}``, the capacity problems let through).
    """
    if not isinstance(data, dict) or data.get("format") != DUMP_FORMAT:
        raise DumpError(f"not a {DUMP_FORMAT} document")
    if data.get("version") != DUMP_VERSION:
        raise DumpError(f"unsupported dump version {data.get('version')!r}")
    try:
        problems = dump_problems(data)
    except (AttributeError, KeyError, TypeError) as exc:
        raise DumpError(f"malformed dump: {exc!r}") from exc
    if not problems:
        problems, over, tops = state_problems(data)
        if not allow_over_capacity:
            problems, over = problems + over, []
    if problems:
        shown = problems[:MAX_SHOWN]
        more = len(problems) - len(shown)
        raise DumpError(
            f"refused, nothing written: {len(problems)} row(s) the API would not accept:\n  "
            + "\n  ".join(shown) + (f"\n  ... and {more} more" if more else "")
        )
    # Roots the file leaves out are the top of the tree the checks found.
    data = {**data, "resource_providers": [
        {**rp, "root": rp.get("root") or tops[rp["uuid"]]}
        for rp in data.get("resource_providers", [])]}
    counts: dict[str, dict[str, int]] = {}
    try:
        caller = request_scope.Caller(request_id=f"req-{uuid.uuid4()}", source=source)
        with transaction.atomic(), request_scope.bound(caller):
            counts = bulk_load(data)
            if dry_run:
                raise DryRunRollback
    except DryRunRollback:
        pass
    except (KeyError, TypeError) as exc:
        raise DumpError(f"malformed dump: {exc!r}") from exc
    return counts, over


def bulk_load(data: dict) -> dict[str, dict[str, int]]:
    """Write a checked dump with raw ORM bulk writes; call inside a transaction.

    Order: catalog names (classes, traits, aggregates, projects, users,
    consumer types), providers and their tree, their inventories, traits and
    aggregates, then consumers and their allocations.
    """
    counts = {}

    def count(kind, total, created, updated=0):
        counts[kind] = {"total": total, "created": created, "updated": updated}

    pks = _load_names(data, count)
    rp_pk, provider_pk = _load_providers(data.get("resource_providers", []), count)
    _load_provider_links(data.get("resource_providers", []), rp_pk, pks, count)
    _load_consumers(data.get("consumers", []), pks, provider_pk, count)
    return counts


def _names(model, field, names) -> dict[str, int]:
    """Map each name to its pk, creating the missing rows."""
    names = {n for n in names if n is not None}
    present = dict(model.objects.filter(**{f"{field}__in": names}).values_list(field, "pk"))
    created = [model(**{field: n}) for n in sorted(names - present.keys())]
    if created:
        model.objects.bulk_create(created, batch_size=500)
        present = dict(model.objects.filter(**{f"{field}__in": names}).values_list(field, "pk"))
    return present, len(created)


def _class_ids(names) -> tuple[dict[str, int], int]:
    """Resource classes by name, the missing ones made under upstream's
    numbering (a bulk insert would take the sequence's ids, which mean
    standard classes there)."""
    names = {n for n in names if n is not None}
    present = dict(ResourceClass.objects.filter(name__in=names).values_list("name", "pk"))
    missing = sorted(names - present.keys())
    for name in missing:
        present[name] = class_insert(name).pk
    return present, len(missing)


def _load_names(data, count) -> dict[str, dict]:
    """Every name the dump uses, created when missing: {kind: {name: pk}}."""
    providers = data.get("resource_providers", [])
    consumers = data.get("consumers", [])
    rc_names = set(data.get("resource_classes", []))
    trait_names = set(data.get("traits", []))
    agg_uuids = set(data.get("aggregates", []))
    for rp in providers:
        rc_names.update(rp.get("inventories", {}))
        trait_names.update(rp.get("traits", []))
        agg_uuids.update(rp.get("aggregates", []))
    for c in consumers:
        rc_names.update(a["resource_class"] for a in c.get("allocations", []))
    pks = {}
    pks["rc"], n = _class_ids(rc_names)
    count("resource_classes", len(rc_names), n)
    pks["trait"], n = _names(Trait, "name", trait_names)
    count("traits", len(trait_names), n)
    pks["agg"], n = _names(Aggregate, "uuid", agg_uuids)
    count("aggregates", len(agg_uuids), n)
    projects = set(data.get("projects", [])) | {c["project"] for c in consumers}
    pks["project"], n = _names(Project, "external_id", projects)
    count("projects", len(projects), n)
    users = set(data.get("users", [])) | {c["user"] for c in consumers}
    pks["user"], n = _names(User, "external_id", users)
    count("users", len(users), n)
    ctypes = set(data.get("consumer_types", [])) | {c.get("consumer_type") for c in consumers}
    ctypes.discard(None)
    pks["ctype"], n = _names(ConsumerType, "name", ctypes)
    count("consumer_types", len(ctypes), n)
    return pks


def _load_providers(providers, count):
    """Create missing providers flat, then set names, generations and the tree.

    Returns ({uuid: pk} of the dumped providers, a uuid -> pk look-up that
    also finds providers outside the dump).
    """
    uuids = [rp["uuid"] for rp in providers]
    existing = {rp.uuid: rp for rp in ResourceProvider.objects.filter(uuid__in=uuids)}
    new = [ResourceProvider(uuid=rp["uuid"], name=f"__loading__{rp['uuid']}",
                            generation=rp.get("generation", 0))
           for rp in providers if rp["uuid"] not in existing]
    ResourceProvider.objects.bulk_create(new, batch_size=500)
    rp_by_uuid = {rp.uuid: rp for rp in ResourceProvider.objects.filter(uuid__in=uuids)}
    rp_pk = {u: rp.pk for u, rp in rp_by_uuid.items()}

    def provider_pk(u):
        if u is None:
            return None
        if u not in rp_pk:
            found = ResourceProvider.objects.filter(uuid=u).values_list("pk", flat=True).first()
            if found is None:
                raise DumpError(f"provider {u} is referenced but not in the dump")
            rp_pk[u] = found
        return rp_pk[u]

    updated = 0
    changed = []
    for rp in providers:
        obj = rp_by_uuid[rp["uuid"]]
        want = {"name": rp["name"], "generation": rp.get("generation", 0),
                "parent_id": provider_pk(rp.get("parent")),
                "root_id": provider_pk(rp["root"])}
        if any(getattr(obj, k) != v for k, v in want.items()):
            if rp["uuid"] in existing:
                updated += 1
            for k, v in want.items():
                setattr(obj, k, v)
            changed.append(obj)
    # Names are unique: move changed names out of the way first.
    conflict = ResourceProvider.objects.filter(
        name__in=[o.name for o in changed]).exclude(uuid__in=[o.uuid for o in changed])
    if conflict.exists():
        raise DumpError(f"provider name already used by another uuid: {conflict.first().name}")
    if changed:
        tmp = [ResourceProvider(pk=o.pk, name=f"__loading__{o.uuid}") for o in changed]
        ResourceProvider.objects.bulk_update(tmp, ["name"], batch_size=500)
        ResourceProvider.objects.bulk_update(changed, ["name", "generation", "parent_id",
                                                       "root_id"], batch_size=500)
    count("resource_providers", len(providers), len(new), updated)
    return rp_pk, provider_pk


def _load_provider_links(providers, rp_pk, pks, count):
    """Inventories, traits and aggregates of the dumped providers: replaced."""
    provider_ids = [rp_pk[rp["uuid"]] for rp in providers]
    want_inv = {}
    for rp in providers:
        for rc, fields in rp.get("inventories", {}).items():
            want_inv[(rp_pk[rp["uuid"]], pks["rc"][rc])] = {
                f: fields[f] for f in INVENTORY_FIELDS if f in fields}
    have_inv = {(i.resource_provider_id, i.resource_class_id): i
                for i in Inventory.objects.filter(resource_provider_id__in=provider_ids)}
    stale = [i.pk for k, i in have_inv.items() if k not in want_inv]
    Inventory.objects.filter(pk__in=stale).delete()
    created_inv, updated_inv = [], []
    for key, fields in want_inv.items():
        fields.setdefault("max_unit", fields["total"])
        inv = have_inv.get(key)
        if inv is None:
            created_inv.append(Inventory(resource_provider_id=key[0], resource_class_id=key[1],
                                         **fields))
        elif any(getattr(inv, f) != v for f, v in fields.items()):
            for f, v in fields.items():
                setattr(inv, f, v)
            updated_inv.append(inv)
    Inventory.objects.bulk_create(created_inv, batch_size=500)
    Inventory.objects.bulk_update(updated_inv, list(INVENTORY_FIELDS), batch_size=500)
    count("inventories", len(want_inv), len(created_inv), len(updated_inv))

    for kind, through, field, lookup, key in (
        ("provider_traits", ProviderTrait, "trait_id", pks["trait"], "traits"),
        ("provider_aggregates", ProviderAggregate, "aggregate_id", pks["agg"], "aggregates"),
    ):
        want = {(rp_pk[rp["uuid"]], lookup[v]) for rp in providers for v in rp.get(key, [])}
        have = {(r, v): pk for pk, r, v in through.objects.filter(
            resource_provider_id__in=provider_ids).values_list("pk", "resource_provider_id", field)}
        through.objects.filter(pk__in=[pk for k, pk in have.items() if k not in want]).delete()
        add = [through(resource_provider_id=r, **{field: v}) for r, v in want if (r, v) not in have]
        through.objects.bulk_create(add, batch_size=500)
        count(kind, len(want), len(add))


def _load_consumers(consumers, pks, provider_pk, count):
    """Consumers (project, user, type, generation) and exactly their dumped allocations."""
    cuuids = [c["uuid"] for c in consumers]
    have_c = {c.uuid: c for c in Consumer.objects.filter(uuid__in=cuuids)}
    new_c, upd_c = [], []
    for c in consumers:
        want = {"project_id": pks["project"][c["project"]], "user_id": pks["user"][c["user"]],
                "consumer_type_id": pks["ctype"].get(c.get("consumer_type")),
                "generation": c.get("generation", 0)}
        obj = have_c.get(c["uuid"])
        if obj is None:
            new_c.append(Consumer(uuid=c["uuid"], **want))
        elif any(getattr(obj, k) != v for k, v in want.items()):
            for k, v in want.items():
                setattr(obj, k, v)
            upd_c.append(obj)
    Consumer.objects.bulk_create(new_c, batch_size=500)
    Consumer.objects.bulk_update(upd_c, ["project_id", "user_id", "consumer_type_id",
                                         "generation"], batch_size=500)
    count("consumers", len(consumers), len(new_c), len(upd_c))
    # Allocations name their consumer by uuid (upstream's allocations.consumer_id).
    c_pk = {u: u for u in Consumer.objects.filter(uuid__in=cuuids).values_list("uuid", flat=True)}
    before = changes.snapshot(c_pk.values())
    want_a = {}
    for c in consumers:
        for a in c.get("allocations", []):
            want_a[(c_pk[c["uuid"]], provider_pk(a["resource_provider"]),
                    pks["rc"][a["resource_class"]])] = a["used"]
    have_a = {(a.consumer_id, a.resource_provider_id, a.resource_class_id): a
              for a in Allocation.objects.filter(consumer_id__in=c_pk.values())}
    Allocation.objects.filter(pk__in=[a.pk for k, a in have_a.items() if k not in want_a]).delete()
    new_a, upd_a = [], []
    for key, used in want_a.items():
        a = have_a.get(key)
        if a is None:
            new_a.append(Allocation(consumer_id=key[0], resource_provider_id=key[1],
                                    resource_class_id=key[2], used=used))
        elif a.used != used:
            a.used = used
            upd_a.append(a)
    Allocation.objects.bulk_create(new_a, batch_size=500)
    Allocation.objects.bulk_update(upd_a, ["used"], batch_size=500)
    if before is not None:
        changes.record(before, changes.snapshot(c_pk.values()) or {},
                       {c["uuid"]: c.get("generation", 0) for c in consumers})
    count("allocations", len(want_a), len(new_a), len(upd_a))
