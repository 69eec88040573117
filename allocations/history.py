"""The allocation history: one AllocationChange per amount a write changed.

The services call :func:`snapshot` before they delete a consumer's rows and
:func:`record` after they wrote the new ones, inside the write's own
transaction: a write that fails or rolls back leaves no record.  Who made
the change comes from placement_core.request_scope (bound by the edge for
API requests, by the commands for theirs).  With
``PLACEMENT_ALLOCATION_HISTORY`` off both calls do nothing (no query).

Cost when on: one SELECT of the consumers' old rows and one multi-row
INSERT per write.
"""
import datetime

from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from allocations import write_sql
from allocations.models import Allocation, AllocationChange
from placement_core import request_scope


def enabled() -> bool:
    return settings.PLACEMENT_ALLOCATION_HISTORY


def snapshot(consumer_uuids):
    """The consumers' allocations as ``{(consumer uuid, provider uuid, class): used}``."""
    if not enabled() or not consumer_uuids:
        return None
    rows = Allocation.objects.filter(consumer_id__in=list(consumer_uuids)).values_list(
        "consumer_id", "resource_provider__uuid", "resource_class__name", "used"
    )
    return {(c, p, rc): used for c, p, rc, used in rows}


def record(before, after, generations, owners=None):
    """Append one change per key whose amount differs between ``before`` and
    ``after``, and per key of a consumer whose owner changed (``owners``:
    consumer uuid -> what changed, see :func:`owner_change`) even when its
    amount did not.

    ``generations``: consumer uuid -> its generation after the write.
    """
    if not enabled():
        return
    before = before or {}
    owners = owners or {}
    caller = request_scope.current()
    changes = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key, 0), after.get(key, 0)
        consumer_uuid, provider_uuid, resource_class = key
        if old == new and consumer_uuid not in owners:
            continue
        # In write_sql.CHANGE_COLUMNS order.
        changes.append((
            consumer_uuid, provider_uuid, resource_class, old, new,
            generations.get(consumer_uuid), caller.request_id, caller.global_request_id,
            caller.user_id, caller.project_id, caller.microversion, caller.source,
            owners.get(consumer_uuid, ""), "",
        ))
    write_sql.insert_changes(changes)


CONSUMER_DELETED = "consumer_deleted"


def record_deleted(consumers):
    """One ``consumer_deleted`` row per consumer deleted while holding no
    allocations (``consumers``: ``[(uuid, generation at deletion)]``): no
    provider, no class, amounts 0 -> 0."""
    if not enabled() or not consumers:
        return
    caller = request_scope.current()
    write_sql.insert_changes([
        (uuid, "", "", 0, 0, generation, caller.request_id, caller.global_request_id,
         caller.user_id, caller.project_id, caller.microversion, caller.source, "",
         CONSUMER_DELETED)
        for uuid, generation in sorted(consumers)
    ])


def owner_change(pairs) -> str:
    """``[(field, old name, new name), ...]`` as one line:
    ``project a -> b; consumer_type INSTANCE -> MIGRATION`` (no type: ``-``)."""
    return "; ".join(f"{field} {old or '-'} -> {new or '-'}" for field, old, new in pairs)


def changes_for(*, consumer=None, provider=None, since=None):
    """The recorded changes of a consumer or a provider uuid, oldest first."""
    query = AllocationChange.objects.all()
    if consumer is not None:
        query = query.filter(consumer_uuid=consumer)
    if provider is not None:
        query = query.filter(provider_uuid=provider)
    if since is not None:
        query = query.filter(created_at__gte=since)
    return query.order_by("created_at", "id")


def as_dict(change):
    return {
        "consumer_uuid": change.consumer_uuid,
        "provider_uuid": change.provider_uuid,
        "resource_class": change.resource_class,
        "amount_before": change.amount_before,
        "amount_after": change.amount_after,
        "consumer_generation": change.consumer_generation,
        "request_id": change.request_id,
        "global_request_id": change.global_request_id,
        "user_id": change.user_id,
        "project_id": change.project_id,
        "microversion": change.microversion,
        "source": change.source,
        "owner_change": change.owner_change,
        "event": change.event,
        "created_at": change.created_at.isoformat(),
    }


def prune(*, days=None, now=None, dry_run=False) -> int:
    """Delete records older than the retention (``dry_run``: count them);
    returns how many went (0 days: none)."""
    days = settings.PLACEMENT_ALLOCATION_HISTORY_RETENTION_DAYS if days is None else days
    if days <= 0:
        return 0
    cutoff = (now or timezone.now()) - timezone.timedelta(days=days)
    old = AllocationChange.objects.filter(created_at__lt=cutoff)
    if dry_run:
        return old.count()
    deleted, _ = old.delete()
    return deleted


def parse_since(value):
    """An ISO 8601 date or date-time (naive = UTC); ValueError with a clear message."""
    moment = parse_datetime(value)
    if moment is None:
        day = parse_date(value)
        if day is not None:
            moment = datetime.datetime(day.year, day.month, day.day)
    if moment is None:
        raise ValueError(f"--since {value!r}: expected an ISO 8601 date or date-time")
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment, datetime.timezone.utc)
    return moment
