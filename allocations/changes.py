"""Recording the allocation history: one row per amount a write changed.

The services call :func:`snapshot` before they delete a consumer's rows and
:func:`record` after they wrote the new ones, inside the write's own
transaction: a write that fails or rolls back leaves no record.  Who made
the change comes from placement_core.request_scope (bound by the edge for
API requests, by the commands for theirs).  With
``PLACEMENT_ALLOCATION_HISTORY`` off both calls do nothing (no query).

The rows go into ``allocation_changes`` through ``write_sql.insert_changes``
(one multi-row INSERT); that table's model, its reading, pruning and the
``/history`` endpoints are the operations app's (``operations.history``),
which sits above this one: writing the record is part of the claim.

Cost when on: one SELECT of the consumers' old rows and one multi-row
INSERT per write.
"""
from django.conf import settings

from allocations import write_sql
from allocations.models import Allocation
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
    rows = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key, 0), after.get(key, 0)
        consumer_uuid, provider_uuid, resource_class = key
        if old == new and consumer_uuid not in owners:
            continue
        # In write_sql.CHANGE_COLUMNS order.
        rows.append((
            consumer_uuid, provider_uuid, resource_class, old, new,
            generations.get(consumer_uuid), caller.request_id, caller.global_request_id,
            caller.user_id, caller.project_id, caller.microversion, caller.source,
            owners.get(consumer_uuid, ""), "",
        ))
    write_sql.insert_changes(rows)


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
