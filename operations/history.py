"""The allocation history, read back: one AllocationChange per amount a write
changed (recorded by ``allocations.changes`` inside the write's transaction),
listed for a consumer or a provider, and pruned after
``PLACEMENT_ALLOCATION_HISTORY_RETENTION_DAYS``.
"""
import datetime

from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from operations.models import AllocationChange
from placement_core import retention


def changes_for(*, consumer=None, provider=None, providers=None, since=None):
    """The recorded changes of a consumer, a provider uuid or any of the
    ``providers`` uuids (a host's tree), oldest first."""
    query = AllocationChange.objects.all()
    if consumer is not None:
        query = query.filter(consumer_uuid=consumer)
    if provider is not None:
        query = query.filter(provider_uuid=provider)
    if providers is not None:
        query = query.filter(provider_uuid__in=list(providers))
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
    return retention.prune(AllocationChange.objects, field="created_at", days=days,
                           now=now, dry_run=dry_run)


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
