"""What ``manage.py audit_allocations`` looks for beyond over-capacity, and
the one allocation fix it makes.

Leaks an operator meets after evacuations, failed migrations and manual
database work:

- consumers whose allocations span more than one provider tree (a
  migration's or evacuation's source-host allocations left behind);
- ``MIGRATION`` consumers older than a threshold (a migration that never
  finished: its allocations hold the source host);
- allocations of a class their provider has no inventory of (they hold no
  capacity, but every later write of that consumer fails its capacity check);
- providers with ``COMPUTE_STATUS_DISABLED`` that still hold consumers (on
  the provider or, for a root, anywhere in its tree).

Only the third is fixed (:func:`drop_allocations_without_inventory`): what
is dropped reserves nothing, and the write goes through
``allocations.services`` with the consumer's generation, so a concurrent
change wins and the allocation history records the fix.  The others need a
person (which host is the real one, is the migration still running?).
"""
from __future__ import annotations

import uuid as uuidlib
from collections import defaultdict
from datetime import timedelta

import os_traits
from django.db.models import Exists, OuterRef
from django.utils import timezone

from allocations import services
from allocations.models import Allocation, Consumer
from placement_site import errors, request_scope
from providers.models import Inventory, ResourceProvider

MIGRATION = "MIGRATION"
DISABLED = os_traits.COMPUTE_STATUS_DISABLED


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
    consumers = Consumer.objects.filter(pk__in=spanning).select_related("consumer_type")
    return sorted(
        ({"consumer": c.uuid,
          "consumer_type": c.consumer_type.name if c.consumer_type else None,
          "roots": sorted(({"uuid": uuids[r], "name": names[r]} for r in spanning[c.pk]),
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
    out = []
    for rp in ResourceProvider.objects.filter(traits__name=DISABLED).order_by("name"):
        allocations = Allocation.objects.filter(
            **({"resource_provider__root_id": rp.pk} if rp.root_id in (None, rp.pk)
               else {"resource_provider_id": rp.pk}))
        n = allocations.values("consumer_id").distinct().count()
        if n:
            out.append({"provider": rp.uuid, "name": rp.name, "consumers": n})
    return out


def drop_allocations_without_inventory(rows: list[dict]) -> tuple[int, list[str]]:
    """Rewrite each consumer of ``rows`` without those allocations, through
    ``allocations.services`` (generation-checked, recorded in the history as
    source ``audit_allocations``).  Returns (consumers fixed, problems)."""
    by_consumer = defaultdict(set)
    for row in rows:
        by_consumer[row["consumer"]].add((row["provider"], row["resource_class"]))
    fixed, problems = 0, []
    caller = request_scope.Caller(request_id=f"req-{uuidlib.uuid4()}",
                                  source="audit_allocations")
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
