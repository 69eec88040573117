"""What ``manage.py audit_allocations`` and the console's Audit page look
for, and the fixes they make.

Both read the same findings from here (the console and the maintenance
commands sit side by side and do not import each other). Besides
over-capacity (:func:`over_capacity`), stored rows the API would refuse
(:func:`invalid_rows`), empty and incomplete consumers, the leaks an
operator meets after evacuations, failed migrations and manual database
work:

- consumers whose allocations span more than one provider tree (a
  migration's or evacuation's source-host allocations left behind);
- ``MIGRATION`` consumers older than a threshold (a migration that never
  finished: its allocations hold the source host);
- allocations of a class their provider has no inventory of (they hold no
  capacity, but every later write of that consumer fails its capacity check);
- disabled hosts that still hold consumers: trees whose root carries
  ``COMPUTE_STATUS_DISABLED`` (the one rule: the trait on a child disables
  nothing), consumers counted anywhere in the tree.

Two fixes are safe and made on request: deleting consumers without
allocations (``consumer_services.consumers_delete_empty``) and dropping allocations
without inventory (:func:`drop_allocations_without_inventory`): what
is dropped reserves nothing, and the write goes through
``allocations.services`` with the consumer's generation, so a concurrent
change wins and the allocation history records the fix.  The others need a
person (which host is the real one, is the migration still running?).
"""
from __future__ import annotations

import re
import uuid as uuidlib
from collections import defaultdict
from datetime import timedelta

import os_resource_classes
import os_traits
from django.db.models import Exists, F, OuterRef, Q, Sum
from django.utils import timezone

from allocations import services
from allocations.models import Allocation, Consumer
from allocations.selectors import consumers_empty, consumers_incomplete
from placement_core import errors, request_scope
from placement_core.uuids import normalize_uuid
from providers.models import Inventory, ResourceProvider, capacity_of
from resource_classes.api.schemas import CUSTOM_NAME_PATTERN
from resource_classes.models import ResourceClass, Trait

MIGRATION = "MIGRATION"
DISABLED = os_traits.COMPUTE_STATUS_DISABLED


def invalid_rows(limit: int = 50) -> list[str]:
    """Stored rows that break the rules every API write applies (written
    behind the API's back: an old load, a hand edit), as readable lines."""
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
    from providers.trees import stored_links, tree_problems

    problems, _ = tree_problems(stored_links(), lambda uuid: f"provider {uuid!r}")
    lines.extend(problems)
    # Names the API would refuse to create (an older load stored what it was given).
    custom = re.compile(CUSTOM_NAME_PATTERN)
    for kind, model, standard in (
        ("resource class", ResourceClass, set(os_resource_classes.STANDARDS)),
        ("trait", Trait, set(os_traits.get_traits())),
    ):
        for name in model.objects.order_by("name").values_list("name", flat=True):
            if name not in standard and not custom.match(name):
                lines.append(f"{kind} {name!r} is neither standard nor CUSTOM_[A-Z0-9_]+")
    for uuid in Consumer.objects.values_list("uuid", flat=True).iterator():
        if normalize_uuid(uuid) is None:
            lines.append(f"consumer uuid {uuid!r} is not a uuid")
    return lines[:limit]


def over_capacity() -> list[dict]:
    """(provider, class) pairs whose allocations exceed what inventory allows.

    Covers allocations with no inventory left at all, and those beyond
    (total - reserved) * allocation_ratio after an inventory change.
    """
    used = list(
        Allocation.objects.values_list("resource_provider_id", "resource_class_id")
        .annotate(used=Sum("used"))
        .order_by()
    )
    # Every inventory as plain tuples: cheaper than naming thousands of
    # providers in an IN list and building a model per row.
    capacities = {
        (rp, rc): capacity_of(total, reserved, ratio)
        for rp, rc, total, reserved, ratio in Inventory.objects.values_list(
            "resource_provider_id", "resource_class_id", "total", "reserved", "allocation_ratio")
    }
    problems = []
    for rp, rc, amount in used:
        capacity = capacities.get((rp, rc))
        if amount > (capacity or 0):
            problems.append({"provider_id": rp, "class_id": rc, "used": amount,
                             "capacity": capacity or 0, "has_inventory": capacity is not None})
    if problems:
        rps = dict(ResourceProvider.objects.filter(
            pk__in={p["provider_id"] for p in problems}).values_list("pk", "uuid"))
        rcs = dict(ResourceClass.objects.values_list("pk", "name"))
        for p in problems:
            p["provider"] = rps[p["provider_id"]]
            p["resource_class"] = rcs[p["class_id"]]
    return problems


def consumers_spanning_trees() -> list[dict]:
    """Consumers with allocations in two or more provider trees, sharing
    providers not counted (a volume pool in an aggregate is one tree of its
    own, and using it beside a host is normal)."""
    roots = defaultdict(set)
    shared = set(ResourceProvider.objects.filter(traits__name=os_traits.MISC_SHARES_VIA_AGGREGATE)
                 .values_list("pk", flat=True))
    for consumer_id, rp, root in (
        Allocation.objects.values_list("consumer_id", "resource_provider_id",
                                       "resource_provider__root_id").distinct()
    ):
        if rp not in shared:
            roots[consumer_id].add(root or rp)
    spanning = {c: r for c, r in roots.items() if len(r) > 1}
    if not spanning:
        return []
    names = dict(ResourceProvider.objects.filter(
        pk__in={r for rs in spanning.values() for r in rs}).values_list("pk", "name"))
    uuids = dict(ResourceProvider.objects.filter(pk__in=names).values_list("pk", "uuid"))
    consumers = Consumer.objects.filter(uuid__in=spanning).select_related("consumer_type")
    return sorted(
        ({"consumer": c.uuid,
          "consumer_type": c.consumer_type.name if c.consumer_type else None,
          "roots": sorted(({"uuid": uuids[r], "name": names[r]} for r in spanning[c.uuid]),
                          key=lambda x: x["name"])}
         for c in consumers),
        key=lambda x: x["consumer"],
    )


def stale_migrations(*, older_than: timedelta, now=None) -> list[dict]:
    """MIGRATION consumers holding allocations, created before ``now - older_than``."""
    cutoff = (now or timezone.now()) - older_than
    rows = (Consumer.objects.filter(consumer_type__name=MIGRATION, created_at__lt=cutoff,
                                    allocations__isnull=False)
            .distinct().order_by("created_at", "uuid").values_list("uuid", "created_at"))
    return [{"consumer": u, "created_at": at.isoformat()} for u, at in rows]


def allocations_without_inventory() -> list[dict]:
    """Allocation rows whose provider has no inventory of their class."""
    has_inventory = Inventory.objects.filter(
        resource_provider_id=OuterRef("resource_provider_id"),
        resource_class_id=OuterRef("resource_class_id"),
    )
    rows = (Allocation.objects.filter(~Exists(has_inventory))
            .order_by("consumer__uuid", "resource_provider__uuid", "resource_class__name")
            .values_list("consumer__uuid", "resource_provider__uuid", "resource_class__name",
                         "used"))
    return [{"consumer": c, "provider": p, "resource_class": rc, "used": used}
            for c, p, rc, used in rows]


def disabled_providers_with_consumers() -> list[dict]:
    """The roots carrying ``COMPUTE_STATUS_DISABLED`` whose tree holds
    consumers, with how many."""
    out = []
    for rp in ResourceProvider.objects.filter(traits__name=DISABLED,
                                              parent__isnull=True).order_by("name"):
        n = (Allocation.objects.filter(resource_provider__root_id=rp.pk)
             .values("consumer_id").distinct().count())
        if n:
            out.append({"provider": rp.uuid, "name": rp.name, "consumers": n})
    return out


def drop_allocations_without_inventory(rows: list[dict], *, source="audit_allocations",
                                       user_id="") -> tuple[int, list[str]]:
    """Rewrite each consumer of ``rows`` without those allocations, through
    ``allocations.services`` (generation-checked, recorded in the history
    with ``source`` and ``user_id``: the command, or the console and the
    staff user who confirmed).  Returns (consumers fixed, problems)."""
    by_consumer = defaultdict(set)
    for row in rows:
        by_consumer[row["consumer"]].add((row["provider"], row["resource_class"]))
    fixed, problems = 0, []
    caller = request_scope.Caller(request_id=f"req-{uuidlib.uuid4()}", source=source,
                                  user_id=user_id)
    with request_scope.bound(caller):
        for consumer_uuid, drop in sorted(by_consumer.items()):
            consumer = (Consumer.objects.select_related("project", "user", "consumer_type")
                        .filter(uuid=consumer_uuid).first())
            if consumer is None:
                continue
            keep = {}
            for p, rc, used in consumer.allocations.values_list(
                    "resource_provider__uuid", "resource_class__name", "used"):
                if (p, rc) not in drop:
                    keep.setdefault(p, {})[rc] = used
            try:
                services.allocations_set(
                    consumer_uuid=consumer.uuid, allocations=keep,
                    project_id=consumer.project.external_id, user_id=consumer.user.external_id,
                    consumer_generation=consumer.generation,
                    consumer_type=consumer.consumer_type.name if consumer.consumer_type else None,
                )
                fixed += 1
            except errors.PlacementError as exc:
                problems.append(f"{consumer.uuid}: {exc}")
    return fixed, problems
