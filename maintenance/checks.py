"""Read-only checks: placement_status, the audit, the catalog comparison."""
from __future__ import annotations

import dataclasses
import re

import os_resource_classes
import os_traits
from django.conf import settings
from django.db.models import Sum

from allocations.models import Allocation
from allocations.selectors import consumers_incomplete
from providers.models import Inventory, ResourceProvider
from placement_site import policy
from resource_classes.models import ResourceClass, Trait


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
    # What a failed check means for `placement-status upgrade check`:
    # "failure" (exit 2) or "warning" (exit 1).
    severity: str = "failure"


SCHEMA_CHECK = "Database schema is current"
POLICY_CHECK = "Policy file is readable"


def _schema_problem() -> str | None:
    """Why the data checks cannot run: no database, or migrations pending."""
    from django.db import DatabaseError, connection
    from django.db.migrations.executor import MigrationExecutor

    try:
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError as exc:
        return f"the database cannot be read: {str(exc).strip().splitlines()[0]}"
    if pending:
        return (f"{len(pending)} migration(s) not applied; run `placement-manage db sync` "
                "(or `manage.py migrate`)")
    return None


def _policy_check() -> Check:
    path = settings.PLACEMENT_POLICY_FILE
    details = []
    if path:
        try:
            policy.validate_policy_file(path)
        except policy.PolicyFileError as exc:
            details.append(str(exc))
    return Check(POLICY_CHECK, not details, details)


def status_checks() -> list[Check]:
    problem = _schema_problem()
    if problem:
        # The data checks would only fail on the missing tables.
        return [Check(SCHEMA_CHECK, False, [problem]), _policy_check()]
    checks = [Check(SCHEMA_CHECK, True, [])]
    missing_root = list(
        ResourceProvider.objects.filter(root__isnull=True).values_list("uuid", flat=True)[:50]
    )
    checks.append(Check("Resource providers have a root provider id", not missing_root,
                        [f"provider {u} has no root provider id" for u in missing_root]))

    incomplete = consumers_incomplete().count()
    checks.append(Check(
        "Consumers have a real project and user", incomplete == 0,
        [f"{incomplete} consumer(s) still carry the incomplete project/user id; "
         "run `manage.py heal_consumers --project-id ... --user-id ...`"] if incomplete else [],
        severity="warning",
    ))

    missing = catalog_missing()
    details = [f"{len(v)} standard {k} name(s) missing (e.g. {', '.join(v[:3])}); "
               "run `manage.py sync_catalog`" for k, v in missing.items() if v]
    checks.append(Check("Standard resource classes and traits are in sync", not details, details,
                        severity="warning"))

    broken = invalid_rows()
    checks.append(Check("Stored rows are valid", not broken, broken))

    checks.append(_policy_check())
    return checks


# --- rows the API would never have stored -----------------------------------------


def invalid_rows(limit: int = 50) -> list[str]:
    """Stored rows that break the rules every API write applies (written
    behind the API's back: an old load, a hand edit), as readable lines."""
    from django.db.models import F, Q

    from placement_site.uuids import normalize_uuid

    lines = []
    broken = Inventory.objects.filter(
        Q(total__lt=1) | Q(reserved__lt=0) | Q(reserved__gt=F("total")) | Q(min_unit__lt=1)
        | Q(max_unit__lt=1) | Q(min_unit__gt=F("max_unit")) | Q(step_size__lt=1)
        | Q(allocation_ratio__lte=0)
    ).select_related("resource_provider", "resource_class")[:limit]
    for inv in broken:
        lines.append(
            f"inventory {inv.resource_class.name} of provider {inv.resource_provider.uuid}: "
            f"total {inv.total}, reserved {inv.reserved}, min_unit {inv.min_unit}, max_unit "
            f"{inv.max_unit}, step_size {inv.step_size}, allocation_ratio {inv.allocation_ratio}")
    for alloc in Allocation.objects.filter(used__lt=1).select_related(
            "consumer", "resource_provider", "resource_class")[:limit]:
        lines.append(f"allocation of {alloc.used} {alloc.resource_class.name} by consumer "
                     f"{alloc.consumer.uuid} on provider {alloc.resource_provider.uuid}")
    for uuid in ResourceProvider.objects.values_list("uuid", flat=True).iterator():
        if normalize_uuid(uuid) is None:
            lines.append(f"provider uuid {uuid!r} is not a uuid")
    # Parent cycles and roots that are not their tree's top: the candidate
    # engine refuses requests that reach such a tree.
    from maintenance.validation import stored_links, tree_problems

    problems, _ = tree_problems(stored_links(), lambda uuid: f"provider {uuid!r}")
    lines.extend(problems)
    # Names the API would refuse to create (an older load stored what it was given).
    from resource_classes.api.schemas import CUSTOM_NAME_PATTERN

    custom = re.compile(CUSTOM_NAME_PATTERN)
    for kind, model, standard in (
        ("resource class", ResourceClass, set(os_resource_classes.STANDARDS)),
        ("trait", Trait, set(os_traits.get_traits())),
    ):
        for name in model.objects.order_by("name").values_list("name", flat=True):
            if name not in standard and not custom.match(name):
                lines.append(f"{kind} {name!r} is neither standard nor CUSTOM_[A-Z0-9_]+")
    from allocations.models import Consumer

    for uuid in Consumer.objects.values_list("uuid", flat=True).iterator():
        if normalize_uuid(uuid) is None:
            lines.append(f"consumer uuid {uuid!r} is not a uuid")
    return lines[:limit]


# --- audit_allocations ----------------------------------------------------------


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
