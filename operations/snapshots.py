"""Usage over time: periodic snapshots of capacity and usage per resource class.

:func:`take` writes one row per resource class for the whole cloud and one
per (aggregate, resource class), from five SELECTs whatever the size.  A
provider counts in an aggregate when it or its tree's root is a member (the
rule of ``member_of`` and headroom: a root in the aggregate brings its NUMA
cells and NICs).  Runs take the ``usage_snapshot`` job lock first, so two
started together write one snapshot.  It
is meant for cron (``manage.py take_usage_snapshot``): with
``PLACEMENT_USAGE_SNAPSHOT_INTERVAL_SECONDS`` set, a run that comes sooner
than that after the last snapshot does nothing, so cron may fire often and
several hosts may run it.  Old snapshots go after
``PLACEMENT_USAGE_SNAPSHOT_RETENTION_DAYS``.
"""
from collections import defaultdict

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max, Sum
from django.utils import timezone

from allocations.models import Allocation
from operations.models import JobLock, UsageSnapshot
from placement_core import retention
from providers.models import Inventory, ProviderAggregate, ResourceProvider

LOCK = "usage_snapshot"


def _rows():
    inventory = list(Inventory.objects.values_list(
        "resource_provider_id", "resource_class__name", "total", "reserved", "allocation_ratio"))
    used = list(Allocation.objects.values("resource_provider_id", "resource_class__name")
                .annotate(amount=Sum("used"))
                .values_list("resource_provider_id", "resource_class__name", "amount"))
    own = defaultdict(set)
    for rp_id, agg_uuid in ProviderAggregate.objects.values_list(
            "resource_provider_id", "aggregate__uuid"):
        own[rp_id].add(agg_uuid)
    members = {}  # rp id -> its own aggregates and its root's
    for rp_id, root_id in ResourceProvider.objects.values_list("pk", "root_id"):
        scopes = own.get(rp_id, set()) | own.get(root_id, set())
        if scopes:
            members[rp_id] = sorted(scopes)
    return inventory, used, members


def _lock():
    """Hold the snapshot job's row lock until the transaction ends."""
    for _ in range(2):
        if JobLock.objects.select_for_update().filter(name=LOCK).exists():
            JobLock.objects.filter(name=LOCK).update(taken_at=timezone.now())
            return
        try:
            # The migration makes the row; a flushed table lost it.
            with transaction.atomic():
                JobLock.objects.create(name=LOCK)
        except IntegrityError:
            pass  # another run made it first: lock it on the next pass


def compute():
    """{(aggregate uuid or "", class): [capacity, used]}."""
    inventory, used, members = _rows()
    figures = defaultdict(lambda: [0, 0])
    for rp_id, rc, total, reserved, ratio in inventory:
        capacity = int((total - reserved) * ratio)
        for scope in ("", *members.get(rp_id, ())):
            figures[(scope, rc)][0] += capacity
    for rp_id, rc, amount in used:
        for scope in ("", *members.get(rp_id, ())):
            figures[(scope, rc)][1] += amount
    return figures


def plan(*, now=None, force=False) -> list[UsageSnapshot]:
    """The rows a snapshot taken ``now`` would write (unsaved; none when the
    interval has not passed)."""
    now = now or timezone.now()
    interval = settings.PLACEMENT_USAGE_SNAPSHOT_INTERVAL_SECONDS
    if interval and not force:
        last = UsageSnapshot.objects.aggregate(last=Max("taken_at"))["last"]
        if last is not None and (now - last).total_seconds() < interval:
            return []
    return [UsageSnapshot(taken_at=now, aggregate_uuid=scope, resource_class=rc,
                          capacity=capacity, used=amount)
            for (scope, rc), (capacity, amount) in sorted(compute().items())]


def take(*, now=None, force=False):
    """Write one snapshot; returns the rows written (0 when the interval has not passed)."""
    with transaction.atomic():
        _lock()
        rows = plan(now=now, force=force)
        UsageSnapshot.objects.bulk_create(rows)
    return len(rows)


def prune(*, now=None, days=None, dry_run=False):
    """Delete the snapshots past the retention (``dry_run``: count them); returns how many."""
    days = settings.PLACEMENT_USAGE_SNAPSHOT_RETENTION_DAYS if days is None else days
    return retention.prune(UsageSnapshot.objects, field="taken_at", days=days,
                           now=now, dry_run=dry_run)


def series(*, aggregate_uuid="", since=None):
    """{class: [(taken_at, capacity, used), ...]} oldest first."""
    query = UsageSnapshot.objects.filter(aggregate_uuid=aggregate_uuid)
    if since is not None:
        query = query.filter(taken_at__gte=since)
    result = defaultdict(list)
    for taken_at, rc, capacity, used in query.order_by("taken_at", "id").values_list(
            "taken_at", "resource_class", "capacity", "used"):
        result[rc].append((taken_at, capacity, used))
    return dict(result)
