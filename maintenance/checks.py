"""Read-only checks: placement_status, the audit, the catalog comparison."""
from __future__ import annotations

import dataclasses

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


def status_checks() -> list[Check]:
    checks = []
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

    path = settings.PLACEMENT_POLICY_FILE
    policy_details = []
    if path:
        try:
            policy.validate_policy_file(path)
        except policy.PolicyFileError as exc:
            policy_details.append(str(exc))
    checks.append(Check("Policy file is readable", not policy_details, policy_details))
    return checks


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
