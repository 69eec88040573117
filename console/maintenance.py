"""The work behind the maintenance commands (manage.py ...).

The commands in ``resource_classes/management/commands`` and
``allocations/management/commands`` only parse options and print; what
they find and change lives here, so tests and the console can call it too.

Exit codes shared by every command: 0 all good, 1 problems found, 2 the
command itself could not run (bad option, unreachable database, bad file).
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict

import os_resource_classes
import os_traits
import yaml
from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q, Sum

from allocations.models import Allocation, Consumer, ConsumerType, Project, User
from providers.models import Aggregate, Inventory, ProviderAggregate, ProviderTrait, ResourceProvider
from resource_classes.models import ResourceClass, Trait

EXIT_OK, EXIT_PROBLEMS, EXIT_ERROR = 0, 1, 2
DUMP_FORMAT = "placement-dump"
DUMP_VERSION = 1


class DryRunRollback(Exception):
    """Raised inside a transaction to undo a dry run's writes."""


# --- catalog -----------------------------------------------------------------


def catalog_missing() -> dict[str, list[str]]:
    """Standard resource classes and traits not in the database."""
    out = {}
    for model, names in (
        (ResourceClass, list(os_resource_classes.STANDARDS)),
        (Trait, list(os_traits.get_traits())),
    ):
        present = set(model.objects.filter(name__in=names).values_list("name", flat=True))
        out[model.__name__] = sorted(n for n in names if n not in present)
    return out


# --- placement_status ---------------------------------------------------------


@dataclasses.dataclass
class Check:
    name: str
    ok: bool
    details: list[str]


def incomplete_consumers():
    return Consumer.objects.filter(
        Q(project__external_id=settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID)
        | Q(user__external_id=settings.PLACEMENT_INCOMPLETE_CONSUMER_USER_ID)
    )


def status_checks() -> list[Check]:
    checks = []
    missing_root = list(
        ResourceProvider.objects.filter(root__isnull=True).values_list("uuid", flat=True)[:50]
    )
    checks.append(Check("Resource providers have a root provider id", not missing_root,
                        [f"provider {u} has no root provider id" for u in missing_root]))

    incomplete = incomplete_consumers().count()
    checks.append(Check(
        "Consumers have a real project and user", incomplete == 0,
        [f"{incomplete} consumer(s) still carry the incomplete project/user id; "
         "run `manage.py heal_consumers --project-id ... --user-id ...`"] if incomplete else [],
    ))

    missing = catalog_missing()
    details = [f"{len(v)} standard {k} name(s) missing (e.g. {', '.join(v[:3])}); "
               "run `manage.py sync_catalog`" for k, v in missing.items() if v]
    checks.append(Check("Standard resource classes and traits are in sync", not details, details))

    path = settings.PLACEMENT_POLICY_FILE
    policy_details = []
    if path:
        try:
            with open(path, encoding="utf-8") as handle:
                data = yaml.safe_load(handle)
            if data is not None and not isinstance(data, dict):
                policy_details.append(f"policy file {path} is not a mapping of rule: check")
        except (OSError, yaml.YAMLError) as exc:
            policy_details.append(f"policy file {path} cannot be read: {exc}")
    checks.append(Check("Policy file is readable", not policy_details, policy_details))
    return checks


# --- audit_allocations ----------------------------------------------------------


def empty_consumers():
    return Consumer.objects.annotate(n=Count("allocations")).filter(n=0)


def over_capacity() -> list[dict]:
    """(provider, class) pairs whose allocations exceed what inventory allows.

    Covers allocations with no inventory left at all, and those beyond
    (total - reserved) * allocation_ratio after an inventory change.
    """
    used = (
        Allocation.objects.values("resource_provider_id", "resource_class_id")
        .annotate(used=Sum("used"))
        .order_by()
    )
    inventories = {
        (inv.resource_provider_id, inv.resource_class_id): inv
        for inv in Inventory.objects.filter(
            resource_provider_id__in={u["resource_provider_id"] for u in used}
        )
    }
    problems = []
    for row in used:
        key = (row["resource_provider_id"], row["resource_class_id"])
        inv = inventories.get(key)
        capacity = inv.capacity if inv else 0
        if row["used"] > capacity:
            problems.append({"provider_id": key[0], "class_id": key[1], "used": row["used"],
                             "capacity": capacity, "has_inventory": inv is not None})
    if problems:
        rps = dict(ResourceProvider.objects.filter(
            pk__in={p["provider_id"] for p in problems}).values_list("pk", "uuid"))
        rcs = dict(ResourceClass.objects.values_list("pk", "name"))
        for p in problems:
            p["provider"] = rps[p["provider_id"]]
            p["resource_class"] = rcs[p["class_id"]]
    return problems


def delete_empty_consumers(uuids) -> int:
    """Delete consumers that hold no allocations, re-checked under a row lock."""
    deleted = 0
    with transaction.atomic():
        locked = list(
            Consumer.objects.select_for_update().filter(uuid__in=list(uuids)).order_by("pk")
        )
        for consumer in locked:
            if not Allocation.objects.filter(consumer_id=consumer.pk).exists():
                consumer.delete()
                deleted += 1
    return deleted


# --- heal_consumers -------------------------------------------------------------


def heal_consumers(*, project_id: str, user_id: str, dry_run: bool = False) -> int:
    """Give incomplete consumers a real project and user; bump their generation."""
    with transaction.atomic():
        consumers = list(incomplete_consumers().select_for_update().select_related(
            "project", "user").order_by("pk"))
        if dry_run or not consumers:
            return len(consumers)
        project, _ = Project.objects.get_or_create(external_id=project_id)
        user, _ = User.objects.get_or_create(external_id=user_id)
        missing_project = settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID
        missing_user = settings.PLACEMENT_INCOMPLETE_CONSUMER_USER_ID
        for consumer in consumers:
            fields = ["generation", "updated_at"]
            if consumer.project.external_id == missing_project:
                consumer.project = project
                fields.append("project")
            if consumer.user.external_id == missing_user:
                consumer.user = user
                fields.append("user")
            consumer.generation = F("generation") + 1
            consumer.save(update_fields=fields)
    return len(consumers)


# --- the portable dump ---------------------------------------------------------

INVENTORY_FIELDS = ("total", "reserved", "min_unit", "max_unit", "step_size", "allocation_ratio")


def export_data() -> dict:
    """All placement data, keyed by uuids and names (never by primary keys)."""
    rc_names = dict(ResourceClass.objects.values_list("pk", "name"))
    trait_names = dict(Trait.objects.values_list("pk", "name"))
    rps = list(ResourceProvider.objects.order_by("pk").values(
        "pk", "uuid", "name", "generation", "parent_id", "root_id"))
    rp_uuid = {rp["pk"]: rp["uuid"] for rp in rps}
    invs, traits, aggs = defaultdict(dict), defaultdict(list), defaultdict(list)
    for inv in Inventory.objects.order_by("pk").values("resource_provider_id", "resource_class_id",
                                                       *INVENTORY_FIELDS):
        invs[inv["resource_provider_id"]][rc_names[inv["resource_class_id"]]] = {
            f: inv[f] for f in INVENTORY_FIELDS}
    for rp_id, t_id in ProviderTrait.objects.order_by("pk").values_list("resource_provider_id",
                                                                      "trait_id"):
        traits[rp_id].append(trait_names[t_id])
    for rp_id, agg in ProviderAggregate.objects.order_by("pk").values_list(
            "resource_provider_id", "aggregate__uuid"):
        aggs[rp_id].append(agg)
    allocs = defaultdict(list)
    for a in Allocation.objects.order_by("pk").values("consumer_id", "resource_provider_id",
                                                      "resource_class_id", "used"):
        allocs[a["consumer_id"]].append({
            "resource_provider": rp_uuid[a["resource_provider_id"]],
            "resource_class": rc_names[a["resource_class_id"]],
            "used": a["used"],
        })
    consumers = [
        {"uuid": c["uuid"], "project": c["project__external_id"], "user": c["user__external_id"],
         "consumer_type": c["consumer_type__name"], "generation": c["generation"],
         "allocations": allocs.get(c["pk"], [])}
        for c in Consumer.objects.order_by("pk").values(
            "pk", "uuid", "project__external_id", "user__external_id", "consumer_type__name",
            "generation")
    ]
    return {
        "format": DUMP_FORMAT,
        "version": DUMP_VERSION,
        "resource_classes": sorted(n for n in rc_names.values() if n.startswith("CUSTOM_")),
        "traits": sorted(n for n in trait_names.values() if n.startswith("CUSTOM_")),
        "aggregates": list(Aggregate.objects.order_by("pk").values_list("uuid", flat=True)),
        "projects": list(Project.objects.order_by("pk").values_list("external_id", flat=True)),
        "users": list(User.objects.order_by("pk").values_list("external_id", flat=True)),
        "consumer_types": list(ConsumerType.objects.order_by("pk").values_list("name", flat=True)),
        "resource_providers": [
            {"uuid": rp["uuid"], "name": rp["name"], "generation": rp["generation"],
             "parent": rp_uuid.get(rp["parent_id"]), "root": rp_uuid.get(rp["root_id"]),
             "inventories": invs.get(rp["pk"], {}), "traits": traits.get(rp["pk"], []),
             "aggregates": aggs.get(rp["pk"], [])}
            for rp in rps
        ],
        "consumers": consumers,
    }


class DumpError(ValueError):
    pass


def _names(model, field, names) -> dict[str, int]:
    """Map each name to its pk, creating the missing rows."""
    names = {n for n in names if n is not None}
    present = dict(model.objects.filter(**{f"{field}__in": names}).values_list(field, "pk"))
    created = [model(**{field: n}) for n in sorted(names - present.keys())]
    if created:
        model.objects.bulk_create(created, batch_size=500)
        present = dict(model.objects.filter(**{f"{field}__in": names}).values_list(field, "pk"))
    return present, len(created)


def load_data(data: dict, *, dry_run: bool = False) -> dict[str, dict[str, int]]:
    """Make the database hold what ``data`` describes; safe to run again.

    Rows are matched by uuid or name.  Providers and consumers present in
    the dump get exactly the dump's inventories, traits, aggregates and
    allocations (generations included); rows not in the dump are left
    alone.  Allocations are copied as they are: no capacity check (run
    ``audit_allocations`` afterwards).  Returns per kind
    ``{"total": n, "created": n, "updated": n}``.
    """
    if not isinstance(data, dict) or data.get("format") != DUMP_FORMAT:
        raise DumpError(f"not a {DUMP_FORMAT} document")
    if data.get("version") != DUMP_VERSION:
        raise DumpError(f"unsupported dump version {data.get('version')!r}")
    counts: dict[str, dict[str, int]] = {}
    try:
        with transaction.atomic():
            counts = _load(data)
            if dry_run:
                raise DryRunRollback
    except DryRunRollback:
        pass
    except (KeyError, TypeError) as exc:
        raise DumpError(f"malformed dump: {exc!r}") from exc
    return counts


def _load(data):
    counts = {}
    providers = data.get("resource_providers", [])
    consumers = data.get("consumers", [])

    def count(kind, total, created, updated=0):
        counts[kind] = {"total": total, "created": created, "updated": updated}

    rc_names = set(data.get("resource_classes", []))
    trait_names = set(data.get("traits", []))
    agg_uuids = set(data.get("aggregates", []))
    for rp in providers:
        rc_names.update(rp.get("inventories", {}))
        trait_names.update(rp.get("traits", []))
        agg_uuids.update(rp.get("aggregates", []))
    for c in consumers:
        rc_names.update(a["resource_class"] for a in c.get("allocations", []))
    rc_pk, n = _names(ResourceClass, "name", rc_names)
    count("resource_classes", len(rc_names), n)
    trait_pk, n = _names(Trait, "name", trait_names)
    count("traits", len(trait_names), n)
    agg_pk, n = _names(Aggregate, "uuid", agg_uuids)
    count("aggregates", len(agg_uuids), n)
    projects = set(data.get("projects", [])) | {c["project"] for c in consumers}
    project_pk, n = _names(Project, "external_id", projects)
    count("projects", len(projects), n)
    users = set(data.get("users", [])) | {c["user"] for c in consumers}
    user_pk, n = _names(User, "external_id", users)
    count("users", len(users), n)
    ctypes = set(data.get("consumer_types", [])) | {c.get("consumer_type") for c in consumers}
    ctypes.discard(None)
    ctype_pk, n = _names(ConsumerType, "name", ctypes)
    count("consumer_types", len(ctypes), n)

    # Providers: create missing ones flat, then set names, generations and the tree.
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

    by_uuid = {rp["uuid"]: rp for rp in providers}

    def root_of(rp):
        seen = set()
        while not rp.get("root") and rp.get("parent") in by_uuid and rp["uuid"] not in seen:
            seen.add(rp["uuid"])
            rp = by_uuid[rp["parent"]]
        return rp.get("root") or rp.get("parent") or rp["uuid"]

    updated = 0
    changed = []
    for rp in providers:
        obj = rp_by_uuid[rp["uuid"]]
        want = {"name": rp["name"], "generation": rp.get("generation", 0),
                "parent_id": provider_pk(rp.get("parent")),
                "root_id": provider_pk(root_of(rp))}
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

    # Inventories, traits, aggregates of the dumped providers: replace.
    pks = [rp_pk[u] for u in uuids]
    want_inv = {}
    for rp in providers:
        for rc, fields in rp.get("inventories", {}).items():
            want_inv[(rp_pk[rp["uuid"]], rc_pk[rc])] = {f: fields[f] for f in INVENTORY_FIELDS
                                                       if f in fields}
    have_inv = {(i.resource_provider_id, i.resource_class_id): i
                for i in Inventory.objects.filter(resource_provider_id__in=pks)}
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
        ("provider_traits", ProviderTrait, "trait_id", trait_pk, "traits"),
        ("provider_aggregates", ProviderAggregate, "aggregate_id", agg_pk, "aggregates"),
    ):
        want = {(rp_pk[rp["uuid"]], lookup[v]) for rp in providers for v in rp.get(key, [])}
        have = {(r, v): pk for pk, r, v in through.objects.filter(
            resource_provider_id__in=pks).values_list("pk", "resource_provider_id", field)}
        through.objects.filter(pk__in=[pk for k, pk in have.items() if k not in want]).delete()
        add = [through(resource_provider_id=r, **{field: v}) for r, v in want if (r, v) not in have]
        through.objects.bulk_create(add, batch_size=500)
        count(kind, len(want), len(add))

    # Consumers and their allocations.
    cuuids = [c["uuid"] for c in consumers]
    have_c = {c.uuid: c for c in Consumer.objects.filter(uuid__in=cuuids)}
    new_c, upd_c = [], []
    for c in consumers:
        want = {"project_id": project_pk[c["project"]], "user_id": user_pk[c["user"]],
                "consumer_type_id": ctype_pk.get(c.get("consumer_type")),
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
    c_pk = dict(Consumer.objects.filter(uuid__in=cuuids).values_list("uuid", "pk"))
    want_a = {}
    for c in consumers:
        for a in c.get("allocations", []):
            want_a[(c_pk[c["uuid"]], provider_pk(a["resource_provider"]),
                    rc_pk[a["resource_class"]])] = a["used"]
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
    count("allocations", len(want_a), len(new_a), len(upd_a))
    return counts


# --- import from an upstream Placement database ----------------------------------


def _connect(url: str):
    """A DB-API connection for ``url`` (SQLAlchemy spellings such as
    upstream's ``mysql+pymysql://`` included)."""
    from placement_site.database import dbapi_connect

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
