"""Every write of allocations and consumers.

Entry points (keyword-only, each one transaction, retried server-side on a
lost race):

- :func:`allocations_replace`: ``PUT /allocations/{consumer_uuid}`` (one
  consumer) and ``POST /allocations`` (many, all or nothing).
- :func:`allocations_set`: one consumer's allocations by keyword, for the
  maintenance commands (``audit_allocations --fix``).
- :func:`allocations_delete`: ``DELETE /allocations/{consumer_uuid}``.
- :func:`allocations_write`: the step the two setters share, for callers that
  already hold a transaction (the reshaper): no retry of its own.

The maintenance fixes of consumers (``heal_consumers``,
``audit_allocations --fix``) are in ``allocations.consumer_services``.

How one write stays safe under concurrent writers (DESIGN.md section 4):

1. Resolve provider uuids and class names (unlocked): 400 for unknown ones.
2. Create missing projects, users and consumer types (sorted), each in a
   savepoint inside the write's own transaction, before any provider row
   lock is held: a refused write leaves none behind, and an insert that
   waits on a competing insert of the same name holds no provider lock, so
   it is never part of a lock cycle.
3. Lock every provider the write touches -- the target providers and the
   providers the consumers' current allocations are on -- in one id-ordered
   pass (``providers.locking``, where every lock and generation bump is).
4. Lock the consumer rows in uuid order (creating new ones; a unique
   violation from a concurrent creator is answered by locking the row it
   made).
5. Re-read the consumers' current allocations under the locks; if they moved
   to a provider not locked in 3, another writer won a race: start again
   (``PLACEMENT_ALLOCATION_CONFLICT_RETRY_COUNT`` times, then 409).
6. Check consumer generations (1.28+), replace the allocations, check
   inventory constraints and capacity against the usage read under the lock,
   bump the generation of each provider that receives allocations (or held
   those of a consumer emptied by this write) once and of each consumer
   once, delete consumers left without allocations.

Lock order everywhere: the existing consumers' allocation rows (upstream's
writers start there, so both keep one order on a shared database), then
providers (id order), then consumers (uuid order).

Generations as upstream counts them (the conformance tests check the
numbers): a provider whose allocations move to another provider, or are
removed by DELETE /allocations/{consumer}, is not bumped, but one whose
consumer is emptied by a write (``{}``) is; a consumer's generation starts
at 0 and every write adds 1 (so a new consumer reads 1).
"""
from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

from django.conf import settings
from django.db import connection

from allocations import changes, write_sql
from allocations.models import Allocation, Consumer, ConsumerType, Project, User
from placement_core import errors
from placement_core.uuids import normalize_uuid
from providers import locking
from providers.locking import LostRace, get_or_create_by_name, run_with_retries
from providers.models import unit_ok

LOG = logging.getLogger(__name__)


class _Unset:
    def __repr__(self):
        return "UNSET"


#: ``generation`` value meaning "do not check the consumer generation" (< 1.28).
UNSET = _Unset()


@dataclass
class ConsumerAllocations:
    """What one consumer should hold after the write.

    ``allocations``: provider uuid -> {resource class name: amount}; empty
    removes everything the consumer holds.
    ``project_id``/``user_id``: None means "not given" (< 1.8): the consumer,
    new or existing, gets the incomplete-consumer ids (as upstream does).
    ``generation``: :data:`UNSET` (no check, < 1.28), None (the consumer must
    not exist yet) or the generation the client saw.
    ``consumer_type``: None means "not given" (< 1.38): a new consumer has no
    type ("unknown"), an existing one keeps its own.
    """

    uuid: str
    allocations: dict = field(default_factory=dict)
    project_id: str | None = None
    user_id: str | None = None
    generation: object = UNSET
    consumer_type: str | None = None


# --- helpers ----------------------------------------------------------------


def provider_ids_of(consumer_uuids) -> set[int]:
    """Ids of the providers the given consumers (by uuid) hold allocations on."""
    if not consumer_uuids:
        return set()
    return set(
        Allocation.objects.filter(consumer_id__in=consumer_uuids)
        .order_by()
        .values_list("resource_provider_id", flat=True)
        .distinct()
    )


# --- the shared write step ------------------------------------------------


def _canonical(provider_uuid: str) -> str:
    """Providers are stored under their canonical uuid (lower case, dashed)."""
    return normalize_uuid(provider_uuid) or provider_uuid


def _no_such_provider(provider_uuid: str) -> errors.BadRequest:
    return errors.BadRequest(
        f"Allocation for resource provider '{provider_uuid}' that does not exist."
    )


def _check_names(requests: list[ConsumerAllocations], found: write_sql.Names):
    """400 for the first unknown provider or resource class, in request order."""
    for req in requests:
        for provider_uuid, resources in req.allocations.items():
            if _canonical(provider_uuid) not in found.providers:
                raise _no_such_provider(provider_uuid)
            for name in resources:
                if name not in found.classes:
                    raise errors.BadRequest(
                        f"Unable to allocate inventory for consumer {req.uuid}: "
                        f"No such resource class {name}."
                    )


def _project_of(req) -> str:
    return req.project_id or settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID


def _user_of(req) -> str:
    return req.user_id or settings.PLACEMENT_INCOMPLETE_CONSUMER_USER_ID


def _ensure_references(requests: list[ConsumerAllocations], found: write_sql.Names):
    """Ids of the projects, users and consumer types the write names, created when missing.

    ``found`` already holds those that existed at the lookup; the rest are
    made (or, under a case-insensitive collation, found) one by one, in
    name order, so two writers creating the same new rows queue rather
    than cross.
    """
    kinds = (
        (found.projects, Project, "external_id", {_project_of(r) for r in requests}),
        (found.users, User, "external_id", {_user_of(r) for r in requests}),
        (found.types, ConsumerType, "name",
         {r.consumer_type for r in requests if r.consumer_type is not None}),
    )
    for ids, model, field_name, names in kinds:
        for name in sorted(names - set(ids)):
            ids[name] = get_or_create_by_name(model, field_name, name).pk
    return found.projects, found.users, found.types


def _lock_consumers(requests, found: write_sql.Names, projects, users, types):
    """Lock the consumers that exist (uuid order) and insert the new ones.

    Returns {uuid: (consumer, existed_before)}: one locking read for the
    existing consumers and one insert for the new ones, whatever their
    number (written out: the ORM's bulk insert cost a claim 0.15 ms of
    building; the new consumers' instances carry no id, which no writer
    reads). A new consumer is inserted without a savepoint of its own: if a
    concurrent writer created the same uuid first, the insert fails and
    :func:`run_with_retries` starts the write again, which then finds it.
    """
    ordered = sorted(requests, key=lambda r: r.uuid)
    existing = [r.uuid for r in ordered if r.uuid in found.consumers]
    locked = {}
    if existing:
        # One deleted since the lookup is absent here and created below.
        locked = {c.uuid: (c, True)
                  for c in locking.lock_consumers(Consumer.objects.filter(uuid__in=existing))}
    new_rows = [
        Consumer(
            uuid=req.uuid,
            project_id=projects[_project_of(req)],
            user_id=users[_user_of(req)],
            consumer_type_id=types[req.consumer_type] if req.consumer_type else None,
            # The generation it has once this write commits: a consumer
            # exists only with allocations, so 0 is never seen.
            generation=1,
        )
        for req in ordered if req.uuid not in locked
    ]
    write_sql.insert_consumers([(c.uuid, c.project_id, c.user_id, c.consumer_type_id,
                                 c.generation) for c in new_rows])
    for consumer in new_rows:
        locked[consumer.uuid] = (consumer, False)
    return locked


def _check_consumer_generation(req: ConsumerAllocations, consumer: Consumer, existed: bool):
    if req.generation is not UNSET:
        locking.check_consumer_generation(req.generation, consumer.generation if existed else None)


def _update_consumer_attributes(req, consumer, projects, users, types) -> list[tuple]:
    """Apply a changed project, user or consumer type (ids by name) to an
    existing consumer; returns ``(attname, old id, new name)`` per change."""
    changed = []
    for name, ids, attname in ((_project_of(req), projects, "project"),
                               (_user_of(req), users, "user"),
                               (req.consumer_type, types, "consumer_type")):
        old = getattr(consumer, f"{attname}_id")
        if name is not None and old != ids[name]:
            setattr(consumer, f"{attname}_id", ids[name])
            changed.append((attname, old, name))
    return changed


_OWNER_MODELS = {"project": (Project, "external_id"), "user": (User, "external_id"),
                 "consumer_type": (ConsumerType, "name")}


def _owner_changes(changed_by_consumer) -> dict[str, str]:
    """{consumer uuid: changes.owner_change text}; one query per kind of
    owner that changed (none in the common write, which changes no owner)."""
    old_names = {}
    for attname, (model, column) in _OWNER_MODELS.items():
        ids = {old for pairs in changed_by_consumer.values()
               for name, old, _ in pairs if name == attname and old is not None}
        if ids:
            old_names[attname] = dict(model.objects.filter(pk__in=ids)
                                      .values_list("pk", column))
    return {
        uuid: changes.owner_change(
            [(name, old_names.get(name, {}).get(old), new) for name, old, new in pairs])
        for uuid, pairs in changed_by_consumer.items()
    }


class NewAllocation(NamedTuple):
    """One allocation row a write is about to insert (write_sql.insert_allocations)."""

    consumer_id: str  # the consumer's uuid, as upstream's allocations table holds it
    resource_provider_id: int
    resource_class_id: int
    used: int


class CapacityRefused(errors.Conflict):
    """A claim refused for capacity (409, no code, as upstream): the class is
    missing, an amount breaks min_unit/max_unit/step_size, or it exceeds the
    free capacity.  ``refusal`` carries the numbers for whoever records
    scheduling failures (allocations.signals.claim_refused)."""

    def __init__(self, detail, *, reason, provider, resource_class, requested=None, used=None,
                 capacity=None, limits=None):
        super().__init__(detail)
        self.refusal = {"reason": reason, "provider": provider, "resource_class": resource_class,
                        "requested": requested, "used": used, "capacity": capacity,
                        # min_unit, max_unit, step_size: which one was broken.
                        **(limits or {})}


def _check_capacity(new_rows, locked_providers, class_names, held_before):
    """Inventory, constraints and capacity of the allocations about to be written.

    Runs after the consumers' old allocations are gone, under the provider
    locks, so the usage read here is exactly what other consumers hold.
    ``held_before`` is {(provider id, class id): amount} the write's
    consumers held before it: a provider already over its capacity (an
    inventory shrunk under its usage) takes a write that leaves it no
    fuller than it was, as upstream allows (Nova moves an instance's
    allocations to its migration this way).
    """
    drawable = write_sql.inventories_with_usage(
        {row.resource_provider_id for row in new_rows},
        {row.resource_class_id for row in new_rows},
    )
    requested = defaultdict(int)
    for row in new_rows:
        key = (row.resource_provider_id, row.resource_class_id)
        provider_uuid = locked_providers[row.resource_provider_id]
        class_name = class_names[row.resource_class_id]
        inv = drawable.get(key)
        if inv is None:
            raise CapacityRefused(
                f"Unable to allocate inventory: Inventory for '{class_name}' on resource "
                f"provider '{provider_uuid}' invalid.",
                reason="no_inventory", provider=provider_uuid, resource_class=class_name,
                requested=row.used,
            )
        if not unit_ok(row.used, inv.min_unit, inv.max_unit, inv.step_size):
            raise CapacityRefused(
                f"Unable to allocate inventory: Unable to create allocation for "
                f"'{class_name}' on resource provider '{provider_uuid}'. The requested "
                "amount would violate inventory constraints.",
                reason="unit_constraints", provider=provider_uuid, resource_class=class_name,
                requested=row.used, used=inv.used, capacity=inv.capacity,
                limits={"min_unit": inv.min_unit, "max_unit": inv.max_unit,
                        "step_size": inv.step_size},
            )
        requested[key] += row.used
        if inv.used + requested[key] > inv.capacity and requested[key] > held_before[key]:
            raise CapacityRefused(
                f"Unable to allocate inventory: Unable to create allocation for "
                f"'{class_name}' on resource provider '{provider_uuid}'. The requested "
                "amount would exceed the capacity.",
                reason="capacity", provider=provider_uuid, resource_class=class_name,
                requested=requested[key], used=inv.used, capacity=inv.capacity,
            )


def allocations_write(*, requests: list[ConsumerAllocations], locked=None) -> None:
    """Replace the allocations of every consumer in ``requests``; call inside a transaction.

    One attempt, no retry: raises :class:`PlacementError` on a client error
    and ``LostRace`` (retry me) when the rows moved under it. A caller that
    has locked providers already (the reshaper) passes them as ``locked``
    (``{id: provider}``, from ``locking.lock_providers``): the write takes
    no provider lock of its own then, and starts over when it needs a
    provider outside them (locking it now would break the id order).
    """
    if not connection.in_atomic_block:
        raise RuntimeError("allocations_write must run inside transaction.atomic()")
    seen = set()
    for req in requests:
        if req.uuid in seen:
            raise errors.BadRequest(f"Consumer {req.uuid} is named more than once.")
        seen.add(req.uuid)

    # Everything the write names, and the providers the consumers are on
    # now: one unlocked read, re-checked under the locks below.
    found = write_sql.lookup(
        consumers=seen,
        providers={_canonical(p) for req in requests for p in req.allocations},
        classes={name for req in requests for res in req.allocations.values() for name in res},
        projects={_project_of(req) for req in requests},
        users={_user_of(req) for req in requests},
        types={req.consumer_type for req in requests if req.consumer_type is not None},
    )
    _check_names(requests, found)
    class_names = {pk: name for name, pk in found.classes.items()}
    projects, users, types = _ensure_references(requests, found)

    write_sql.lock_allocations(uuid for uuid in seen if uuid in found.consumers)
    needed = set(found.providers.values()) | found.held
    if locked is None:
        locked = locking.lock_providers(needed)
    elif not needed <= set(locked):
        raise LostRace("the write names a provider its caller did not lock")
    for provider_uuid in (p for req in requests for p in req.allocations):
        if found.providers[_canonical(provider_uuid)] not in locked:
            # Deleted since the lookup: as if it had never been there.
            raise _no_such_provider(provider_uuid)
    locked_providers = {pk: provider.uuid for pk, provider in locked.items()}

    consumers = _lock_consumers(requests, found, projects, users, types)
    # A consumer this write created holds nothing, and no other writer can
    # see it before the commit: only the others' allocations are checked,
    # recorded and removed (three statements fewer for a claim).
    held_ids = [c.uuid for c, existed in consumers.values() if existed]
    held = write_sql.held_allocations(held_ids)
    if not {rp_id for _, rp_id, _, _ in held} <= set(locked_providers):
        raise LostRace("a consumer's allocations moved to another provider")

    # Generations first, in request order (so the first stale consumer is named).
    for req in requests:
        consumer, existed = consumers[req.uuid]
        _check_consumer_generation(req, consumer, existed)

    history_before = changes.snapshot(held_ids)
    if held_ids:
        Allocation.objects.filter(consumer_id__in=held_ids).delete()

    # One row per (consumer, provider, class); a provider named twice in one
    # body (two spellings of its uuid, or a repeated list entry) merges.
    rows_by_key = {}
    for req in requests:
        consumer, _ = consumers[req.uuid]
        for provider_uuid, resources in req.allocations.items():
            rp_id = found.providers[_canonical(provider_uuid)]
            for class_name, used in resources.items():
                key = (consumer.uuid, rp_id, found.classes[class_name])
                rows_by_key[key] = NewAllocation(*key, used)
    new_rows = list(rows_by_key.values())
    held_before = defaultdict(int)
    for _, rp_id, rc_id, used in held:
        held_before[(rp_id, rc_id)] += used
    _check_capacity(new_rows, locked_providers, class_names, held_before)
    write_sql.insert_allocations(new_rows)

    # One bump per provider that received allocations or lost those of a
    # consumer emptied here (as upstream counts), one per consumer.
    emptied_ids = {consumers[req.uuid][0].uuid for req in requests if not req.allocations}
    receiving = {row.resource_provider_id for row in new_rows}
    locking.bump_generations(
        locked[pk] for pk in sorted(
            receiving | {rp_id for c_id, rp_id, _, _ in held if c_id in emptied_ids}))

    emptied, bumped, owners = [], [], {}
    for req in requests:
        consumer, existed = consumers[req.uuid]
        if not req.allocations:
            emptied.append(consumer.uuid)
            continue
        if not existed:
            continue  # inserted by this write with its first generation
        changed = _update_consumer_attributes(req, consumer, projects, users, types)
        if changed:
            owners[consumer.uuid] = changed
            consumer.save(update_fields=["updated_at", *(attname for attname, _, _ in changed)])
        bumped.append(consumer)
    # One UPDATE for every consumer that keeps allocations.
    locking.bump_generations(bumped, touch=True)
    if emptied:
        # No allocations left: the consumer goes (as upstream), generation and all.
        Consumer.objects.filter(uuid__in=emptied).delete()
    _record_history(history_before, new_rows, consumers, locked_providers, class_names, owners)


def _record_history(before, new_rows, consumers, locked_providers, class_names, owners):
    if not changes.enabled():
        return
    by_id = {consumer.uuid: consumer for consumer, _ in consumers.values()}
    after = {
        (by_id[row.consumer_id].uuid, locked_providers[row.resource_provider_id],
         class_names[row.resource_class_id]): row.used
        for row in new_rows
    }
    changes.record(before, after, {c.uuid: c.generation for c in by_id.values()},
                   _owner_changes(owners) if owners else None)


# --- entry points -----------------------------------------------------------


def allocations_replace(*, requests: list[ConsumerAllocations]) -> None:
    """Set (or clear, with empty allocations) the allocations of many consumers atomically."""
    # New projects, users and consumer types are made inside the allocation
    # transaction, so a refused write leaves none behind. Two writers making
    # the same one queue on its unique key (references are taken before any
    # provider lock, in name order, so they cannot deadlock with it).
    run_with_retries(lambda: allocations_write(requests=requests), "the allocation write")


def allocations_set(
    *,
    consumer_uuid: str,
    allocations: dict,
    project_id: str | None = None,
    user_id: str | None = None,
    consumer_generation=UNSET,
    consumer_type: str | None = None,
) -> None:
    """Replace one consumer's allocations (``{}`` removes them all)."""
    allocations_replace(
        requests=[
            ConsumerAllocations(
                uuid=consumer_uuid,
                allocations=allocations,
                project_id=project_id,
                user_id=user_id,
                generation=consumer_generation,
                consumer_type=consumer_type,
            )
        ]
    )


def allocations_delete(*, consumer_uuid: str) -> None:
    """Remove every allocation of a consumer, and the consumer; 404 when it holds none."""

    if "\x00" in consumer_uuid:
        raise errors.NotFound(f"No allocations for consumer '{consumer_uuid}'")

    def work():
        consumer = Consumer.objects.filter(uuid=consumer_uuid).first()
        provider_ids = provider_ids_of([consumer.uuid]) if consumer else set()
        if not provider_ids:
            raise errors.NotFound(f"No allocations for consumer '{consumer_uuid}'")
        write_sql.lock_allocations([consumer.uuid])
        locked = locking.lock_providers(provider_ids)
        rows = locking.lock_consumers(Consumer.objects.filter(uuid=consumer_uuid))
        if not rows:
            raise LostRace("consumer vanished")
        consumer = rows[0]
        if not provider_ids_of([consumer.uuid]) <= set(locked):
            raise LostRace("consumer's allocations moved")
        history_before = changes.snapshot([consumer.uuid])
        Allocation.objects.filter(consumer_id=consumer.uuid).delete()
        consumer.delete()
        changes.record(history_before, {}, {consumer.uuid: consumer.generation})

    run_with_retries(work, "the allocation delete")
