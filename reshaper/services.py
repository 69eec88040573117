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
4. Replace each provider's inventories (``providers.inventory_services.
   apply_inventories``), without the "in use" check: a class may disappear
   here while its allocations move away in step 5.
5. Replace the allocations (``allocations.services.allocations_write``): it
   checks consumer generations, then min/max/step and capacity of every new
   allocation against the inventories written in step 4, so only the final
   state is judged; it bumps each provider receiving allocations and each
   consumer once, and deletes consumers left without allocations.
6. Refuse (409 ``placement.inventory.inuse``) when an allocation remains on
   a class a provider of ``inventories`` no longer has.
7. Bump the generations of the ``inventories`` providers.

Any error raised on the way rolls the whole transaction back: on failure
nothing, not even a project, user or consumer row, is left behind.

Provider generations, as upstream Placement counts them (the conformance
tests check the numbers): a provider of ``inventories`` gains 2 (inventory
add/update, then inventory removal), a provider receiving allocations gains
1 more; a provider that only loses allocations is not bumped.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import F

from allocations.models import Allocation, Consumer
from allocations.services import (
    ConsumerAllocations,
    allocations_write,
    provider_ids_of,
    run_with_retries,
)
from placement_site import errors
from providers.inventory_services import InventorySpec, apply_inventories
from providers.locking import check_provider_generation, lock_providers
from providers.models import Inventory, ResourceProvider

# What one provider of ``inventories`` gains; see the module docstring.
INVENTORY_GENERATION_STEP = 2


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


def _check_nothing_stranded(providers: list[ResourceProvider]) -> None:
    """409 inventory.inuse when a provider holds allocations of a class it no longer has."""
    by_pk = {rp.pk: rp for rp in providers}
    held = set(
        Allocation.objects.filter(resource_provider_id__in=list(by_pk))
        .values_list("resource_provider_id", "resource_class_id", "resource_class__name")
        .distinct()
    )
    if not held:
        return
    stocked = set(
        Inventory.objects.filter(resource_provider_id__in=list(by_pk)).values_list(
            "resource_provider_id", "resource_class_id"
        )
    )
    stranded: dict[int, set[str]] = {}
    for rp_id, rc_id, rc_name in held:
        if (rp_id, rc_id) not in stocked:
            stranded.setdefault(rp_id, set()).add(rc_name)
    if stranded:
        rp_id = min(stranded)
        names = ", ".join(sorted(stranded[rp_id]))
        raise errors.Conflict(
            f"update conflict: Inventory for '{names}' on resource provider "
            f"'{by_pk[rp_id].uuid}' in use.",
            code=errors.INVENTORY_INUSE,
        )


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
        apply_inventories(
            provider,
            item.inventories,
            # Reshaper exists from 1.30, after 1.26 allowed reserved == total.
            reserved_may_equal_total=True,
            check_in_use=False,
        )

    if consumers:
        # Every provider above is already locked; passing them keeps the
        # locks allocations_write takes within the same ordered set.
        allocations_write(requests=consumers, extra_provider_ids=involved)

    _check_nothing_stranded(providers)

    if providers:
        ResourceProvider.objects.filter(pk__in=[rp.pk for rp in providers]).update(
            generation=F("generation") + INVENTORY_GENERATION_STEP
        )


def reshape(
    *,
    inventories: list[ProviderInventories],
    allocations: list[ConsumerAllocations],
) -> None:
    """Apply every inventory and allocation replacement, or none of them.

    Raises ``placement_site.errors`` exceptions (400/409) and then changes
    nothing.
    """
    run_with_retries(lambda: _reshape_once(inventories, allocations), "the reshape")
