"""What a drain what-if meets besides consumers to move: moves already in
flight, and consumers that share one reason for finding no place.

Nova moves an instance as two consumers: a ``MIGRATION`` consumer takes
what the instance held on the source host, and the instance takes the
destination's share. The two halves are one move: draining the source
relocates neither (the instance already has its place; the migration's
allocations go when the move completes). The instance is found in the
allocation history: Nova writes the migration's allocations and the
instance's change in one request (``POST /allocations``), so their
changes share that write's request id and moment, or the caller's global
request id.
"""
from __future__ import annotations

from collections import defaultdict

from django.db.models import Q

from allocations.models import Allocation
from operations.models import AllocationChange

MIGRATION = "MIGRATION"


def instances_of(migrations) -> dict:
    """{migration consumer uuid: the uuid of the consumer moving with it, or
    None when the history does not tell} (two statements; none for no
    migrations). One in the same project is preferred when a write holds
    several."""
    found = {m: None for m in migrations}
    if not found:
        return found
    writes, operations = defaultdict(set), defaultdict(set)
    projects = {}
    for consumer, request_id, moment, global_id, project in AllocationChange.objects.filter(
            consumer_uuid__in=list(found)).values_list(
            "consumer_uuid", "request_id", "created_at", "global_request_id", "project_id"):
        if request_id:
            writes[(request_id, moment)].add(consumer)
        if global_id:
            operations[global_id].add(consumer)
        projects[consumer] = project
    if not (writes or operations):
        return found
    others = (AllocationChange.objects
              .filter(Q(request_id__in={r for r, _ in writes})
                      | Q(global_request_id__in=list(operations)))
              .exclude(consumer_uuid__in=list(found))
              .order_by("-created_at", "-id")
              .values_list("consumer_uuid", "request_id", "created_at", "global_request_id",
                           "project_id"))
    # The same write first, then the same operation; the newest first.
    ranked = sorted(
        ((0 if (request_id, moment) in writes else 1, consumer,
          writes.get((request_id, moment), set()) | operations.get(global_id, set()), project)
         for consumer, request_id, moment, global_id, project in others),
        key=lambda row: row[0])
    for _, consumer, migrations_of, project in ranked:
        for m in migrations_of:
            if found[m] is None or (project == projects[m] and found[m][1] != projects[m]):
                found[m] = (consumer, project)
    return {m: pair[0] if pair else None for m, pair in found.items()}


def hosts_of(consumers, root_of, sharing, name_of) -> dict:
    """{consumer: [(root uuid, name)] of the trees it holds allocations in,
    sharing providers left out}, by name (one statement)."""
    out = defaultdict(set)
    for consumer, rp in Allocation.objects.filter(consumer_id__in=list(consumers)).values_list(
            "consumer_id", "resource_provider_id"):
        if rp not in sharing:
            out[consumer].add(root_of(rp))
    return {c: sorted((name_of(r) for r in roots), key=lambda e: e["name"])
            for c, roots in out.items()}


def reason_groups(not_placed) -> list:
    """The consumers that find no place, one group per reason (the same
    words for a whole set of them say it once), the largest group first:
    [{"reason": the reason, "moves": [Move]}]."""
    groups = {}
    for move in not_placed:
        groups.setdefault(move.reason["text"], {"reason": move.reason, "moves": []})[
            "moves"].append(move)
    return sorted(groups.values(), key=lambda g: -len(g["moves"]))
