"""POST /reshaper: replace inventories and allocations of many providers at once.

One entry point, :func:`reshape`, one transaction (retried server-side when it
loses a race, like every allocation write). Its steps:

1. Resolve the providers named in ``inventories`` (400
   ``placement.resource_provider.not_found`` for an unknown one).
2. Lock, in one primary-key ordered pass, every provider involved: those of
   ``inventories``, those the new allocations name, and those the named
   consumers hold allocations on now.
3. Check each ``inventories`` provider's generation under its lock (409
   ``placement.concurrent_update``).
4. Give each ``inventories`` provider with a non-empty new set an interim
   inventory: its new records plus, unchanged, those it is about to lose
   (``providers.inventory_services.apply_inventories`` without the "in
   use" check). A provider given ``{}`` keeps its inventory for now.
5. Replace the allocations (``allocations.services.allocations_write``,
   under the locks of step 2: it takes none of its own): it
   checks consumer generations, then min/max/step and capacity of every new
   allocation against the interim inventories (an allocation left on a
   class that goes away still fits there); it bumps each provider receiving
   allocations (and each provider an emptied consumer held) and each
   consumer once, and deletes consumers left without allocations.
6. Set each ``inventories`` provider's final inventory, now with the "in
   use" check: 409 ``placement.inventory.inuse`` when an allocation remains
   on a class that goes away.

Any error raised on the way rolls the whole transaction back: on failure
nothing, not even a project, user or consumer row, is left behind.

Provider generations, as upstream Placement counts them (the conformance
tests check the numbers): a provider of ``inventories`` gains 1 for its
final inventory and 1 more for the interim one when its new set is not
empty; a provider receiving allocations, or losing those of a consumer
emptied here, gains 1 more; one that only sees a consumer move away is not
bumped.
"""
from __future__ import annotations

from dataclasses import dataclass

from allocations.models import Consumer
from allocations.services import ConsumerAllocations, allocations_write, provider_ids_of
from placement_core import errors
from providers.inventory_services import InventorySpec, apply_inventories
from providers.locking import (
    bump_generations,
    check_provider_generation,
    lock_providers,
    run_with_retries,
)
from providers.models import Inventory, ResourceProvider

@dataclass(frozen=True)
class ProviderInventories:
    """The complete new inventory of one provider, and the generation the client saw."""

    provider_uuid: str
    generation: int
    inventories: dict[str, InventorySpec]


def _resolve_inventory_providers(items: list[ProviderInventories]) -> dict[str, int]:
    """{uuid: pk} of the providers of ``inventories``; 400 for an unknown one."""
    found = dict(
        ResourceProvider.objects.filter(
            uuid__in=[item.provider_uuid for item in items]
        ).values_list("uuid", "id")
    )
    for item in items:
        if item.provider_uuid not in found:
            raise _provider_not_found(item.provider_uuid)
    return found


def _provider_not_found(provider_uuid) -> errors.BadRequest:
    return errors.BadRequest(
        f"Resource provider {provider_uuid} in inventories not found: "
        f"No resource provider with uuid {provider_uuid} found.",
        code=errors.PROVIDER_NOT_FOUND,
    )


GENERATION_CONFLICT = (
    "resource provider generation conflict for provider {uuid}: "
    "actual: {actual}, given: {given}"
)


def _involved_provider_ids(consumers: list[ConsumerAllocations]) -> set[int]:
    """Providers the new allocations name, and those the consumers are on now.

    An unlocked read: ``allocations_write`` re-checks under the locks and
    starts over when a consumer's allocations moved meanwhile. Unknown
    provider uuids are left out here; ``allocations_write`` refuses them.
    """
    targets = {rp_uuid for req in consumers for rp_uuid in req.allocations}
    ids = set(
        ResourceProvider.objects.filter(uuid__in=targets).values_list("id", flat=True)
    )
    consumer_ids = Consumer.objects.filter(
        uuid__in=[req.uuid for req in consumers]
    ).values_list("id", flat=True)
    return ids | provider_ids_of(list(consumer_ids))


def _interim(provider, new: dict[str, InventorySpec]) -> dict[str, InventorySpec]:
    """The provider's current records, overridden and extended by ``new``."""
    current = {
        inv.resource_class.name: InventorySpec(
            total=inv.total, reserved=inv.reserved, min_unit=inv.min_unit,
            max_unit=inv.max_unit, step_size=inv.step_size,
            allocation_ratio=inv.allocation_ratio)
        for inv in Inventory.objects.filter(resource_provider=provider)
        .select_related("resource_class")
    }
    return {**current, **new}


def _reshape_once(inventories: list[ProviderInventories], consumers: list[ConsumerAllocations]):
    pks = _resolve_inventory_providers(inventories)
    involved = set(pks.values()) | _involved_provider_ids(consumers)
    locked = lock_providers(involved)

    providers = []
    for item in inventories:
        provider = locked.get(pks[item.provider_uuid])
        if provider is None:  # deleted between the lookup and the lock
            raise _provider_not_found(item.provider_uuid)
        check_provider_generation(provider, item.generation, GENERATION_CONFLICT)
        providers.append(provider)

    for provider, item in zip(providers, inventories):
        if item.inventories:
            apply_inventories(
                provider,
                _interim(provider, item.inventories),
                # Reshaper exists from 1.30, after 1.26 allowed reserved == total.
                reserved_may_equal_total=True,
                check_in_use=False,
            )

    if consumers:
        # The providers are locked once, above: the write uses those locks.
        allocations_write(requests=consumers, locked=locked)

    for provider, item in zip(providers, inventories):
        try:
            apply_inventories(provider, item.inventories, reserved_may_equal_total=True)
        except errors.Conflict as exc:
            if exc.code == errors.INVENTORY_INUSE:
                exc.detail = f"update conflict: {exc.detail}"
            raise

    # One bump for the final inventory, one more for an interim one.
    for step in (1, 2):
        bump_generations([rp for rp, item in zip(providers, inventories)
                          if bool(item.inventories) == (step == 2)], step=step)


def reshape(
    *,
    inventories: list[ProviderInventories],
    allocations: list[ConsumerAllocations],
) -> None:
    """Apply every inventory and allocation replacement, or none of them.

    Raises ``placement_core.errors`` exceptions (400/409) and then changes
    nothing.
    """
    run_with_retries(lambda: _reshape_once(inventories, allocations), "the reshape")
