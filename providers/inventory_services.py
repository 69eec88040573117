"""Writes to a resource provider's inventories.

Every entry point is one transaction that locks the provider row
(``providers.locking``), checks the client's generation under the lock
where the request carries one, validates, writes, and bumps the provider's
generation exactly once.  They raise ``placement_core.errors`` exceptions;
nothing is written when one is raised.

``apply_inventories`` is the locked core of a full replacement; the
reshaper calls it on providers it has already locked itself.
"""
import logging
import math
from dataclasses import asdict, dataclass

from django.db import IntegrityError, transaction
from django.db.models import Sum

from placement_core import errors
from providers.locking import bump_generations, check_provider_generation, lock_provider_by_uuid
from providers.models import Inventory, ResourceProvider, capacity_of
from resource_classes.models import ResourceClass
from resource_classes.services import storable

LOG = logging.getLogger(__name__)

MAX_INT = 2147483647
FIELDS = ("total", "reserved", "min_unit", "max_unit", "step_size", "allocation_ratio")


@dataclass(frozen=True)
class InventorySpec:
    """One inventory record as a client asked for it, with the defaults filled in."""

    total: int
    reserved: int = 0
    min_unit: int = 1
    max_unit: int = MAX_INT
    step_size: int = 1
    allocation_ratio: float = 1.0

    @classmethod
    def from_body(cls, data: dict) -> "InventorySpec":
        """Build from a (schema-validated) body; unknown keys are ignored."""
        values = {name: data[name] for name in FIELDS if name in data}
        for name in ("total", "reserved", "min_unit", "max_unit", "step_size"):
            if name in values:
                values[name] = int(values[name])
        if "allocation_ratio" in values:
            values["allocation_ratio"] = float(values["allocation_ratio"])
        return cls(**values)

    def as_dict(self) -> dict:
        return asdict(self)


# --- helpers ---------------------------------------------------------------


def _capacity_problem(spec: InventorySpec, *, reserved_may_equal_total: bool) -> str | None:
    """The reason a record is unusable, or None."""
    if not math.isfinite(spec.allocation_ratio):
        # json.loads lets NaN through, and NaN passes every JSON Schema bound.
        return "The allocation_ratio value is not a finite number."
    # Judged, as upstream judges it, on the capacity: from 1.26 it may be 0,
    # before that it must be positive (so total 2, reserved 1, ratio 0.5 is
    # refused below 1.26). min_unit above max_unit is accepted, as upstream
    # accepts it (nothing can then be allocated from that inventory).
    capacity = capacity_of(spec.total, spec.reserved, spec.allocation_ratio)
    if reserved_may_equal_total:
        if capacity < 0:
            return "The reserved value is greater than total."
    elif capacity <= 0:
        return "The reserved value is greater than or equal to total."
    return None


def inventory_problem(fields: dict) -> str | None:
    """Why one inventory record (the fields of a PUT body, already valid
    against its JSON Schema) cannot be stored, or None; the rule every
    inventory write applies, for writers outside the API (loads)."""
    return _capacity_problem(InventorySpec.from_body(fields), reserved_may_equal_total=True)


def _check_spec(provider, rc_name, spec, *, reserved_may_equal_total, action):
    problem = _capacity_problem(spec, reserved_may_equal_total=reserved_may_equal_total)
    if problem:
        raise errors.BadRequest(
            f"Unable to {action} inventory for resource provider {provider.uuid}: "
            f"Invalid inventory for '{rc_name}' on resource provider "
            f"'{provider.uuid}'. {problem}"
        )


def _classes_by_name(names) -> dict[str, ResourceClass]:
    return {rc.name: rc for rc in ResourceClass.objects.filter(name__in=list(names))}


def _in_use_error(provider, rc_names) -> errors.Conflict:
    # Nova's report client recognises this text (before 1.23 there is no
    # error code to go by): keep its words, the quotes and the class order.
    listed = ", ".join(rc_names)
    return errors.Conflict(
        f"Inventory for '{listed}' on resource provider '{provider.uuid}' in use.",
        code=errors.INVENTORY_INUSE,
    )


def _classes_in_use(provider, rc_ids) -> list[str]:
    """Names of the classes among ``rc_ids`` with allocations against
    ``provider``, in resource class id order (as upstream names them)."""
    if not rc_ids:
        return []
    rows = (
        provider.allocations.filter(resource_class_id__in=list(rc_ids))
        .values_list("resource_class_id", "resource_class__name")
        .distinct()
    )
    return [name for _, name in sorted(set(rows))]


def _warn_if_overcommitted(provider, inventories):
    """Log (do not refuse) when a new capacity is below what is already allocated.

    Placement lets an operator shrink an inventory under its usage (for
    instance to drain a host); the existing allocations stay.
    """
    by_id = {inv.resource_class_id: inv for inv in inventories}
    if not by_id:
        return
    used = (
        provider.allocations.filter(resource_class_id__in=list(by_id))
        .values("resource_class_id")
        .annotate(used=Sum("used"))
    )
    for row in used:
        inv = by_id[row["resource_class_id"]]
        if row["used"] > inv.capacity:
            LOG.warning(
                "Inventory of %s on resource provider %s now has capacity %d, below the %d "
                "already allocated.",
                inv.resource_class.name, provider.uuid, inv.capacity, row["used"],
            )


def _assign(inventory: Inventory, spec: InventorySpec) -> bool:
    """Copy ``spec`` onto ``inventory``; True when something changed."""
    changed = False
    for name, value in spec.as_dict().items():
        if getattr(inventory, name) != value:
            setattr(inventory, name, value)
            changed = True
    return changed


def _locked_provider(provider_uuid, generation=None) -> ResourceProvider:
    provider = lock_provider_by_uuid(provider_uuid)
    if generation is not None:
        check_provider_generation(provider, generation)
    return provider


# --- the locked core of a full replacement ---------------------------------


def apply_inventories(
    provider: ResourceProvider,
    inventories: dict[str, InventorySpec],
    *,
    reserved_may_equal_total: bool,
    check_in_use: bool = True,
) -> list[Inventory]:
    """Make ``provider``'s inventories exactly ``inventories`` (class name -> spec).

    The caller holds the provider's row lock inside a transaction, has
    checked its generation and bumps it afterwards. 400 for an unknown class
    or an unusable record; 409 ``placement.inventory.inuse`` when a class
    that would go away has allocations here (``check_in_use=False`` skips
    that, for the reshaper, which moves those allocations in the same
    transaction).
    """
    classes = _classes_by_name(inventories)
    unknown = sorted(set(inventories) - set(classes))
    if unknown:
        raise errors.BadRequest(
            f"Unknown resource class in inventory for resource provider {provider.uuid}: "
            f"No such resource class {unknown[0]}."
        )
    for name, spec in inventories.items():
        _check_spec(
            provider, name, spec, reserved_may_equal_total=reserved_may_equal_total,
            action="update",
        )

    existing = {
        inv.resource_class_id: inv
        for inv in Inventory.objects.filter(resource_provider=provider).select_related(
            "resource_class"
        )
    }
    wanted = {classes[name].pk: spec for name, spec in inventories.items()}
    removed = set(existing) - set(wanted)
    if check_in_use:
        busy = _classes_in_use(provider, removed)
        if busy:
            raise _in_use_error(provider, busy)

    if removed:
        Inventory.objects.filter(resource_provider=provider, resource_class_id__in=removed).delete()
    result = []
    created = []
    for rc_id, spec in wanted.items():
        inv = existing.get(rc_id)
        if inv is None:
            inv = Inventory(resource_provider=provider, resource_class_id=rc_id, **spec.as_dict())
            created.append(inv)
        elif _assign(inv, spec):
            inv.save(update_fields=[*FIELDS, "updated_at"])
        result.append(inv)
    if created:
        Inventory.objects.bulk_create(created)
    by_id = {rc.pk: rc for rc in classes.values()}
    for inv in result:
        inv.resource_class = by_id[inv.resource_class_id]
    _warn_if_overcommitted(provider, [inv for inv in result if inv.resource_class_id in existing])
    return sorted(result, key=lambda inv: inv.resource_class.name)


# --- entry points ----------------------------------------------------------


def inventories_replace(
    *,
    provider_uuid: str,
    generation: int,
    inventories: dict[str, InventorySpec],
    reserved_may_equal_total: bool,
) -> tuple[ResourceProvider, list[Inventory]]:
    """PUT /resource_providers/{uuid}/inventories: replace the whole set."""
    with transaction.atomic():
        provider = _locked_provider(provider_uuid, generation)
        try:
            result = apply_inventories(
                provider, inventories, reserved_may_equal_total=reserved_may_equal_total
            )
        except errors.Conflict as exc:
            if exc.code == errors.INVENTORY_INUSE:
                exc.detail = f"update conflict: {exc.detail}"
            raise
        bump_generations([provider])
    return provider, result


def inventory_create(
    *,
    provider_uuid: str,
    resource_class: str,
    spec: InventorySpec,
    generation: int | None = None,
    reserved_may_equal_total: bool,
) -> tuple[ResourceProvider, Inventory]:
    """POST /resource_providers/{uuid}/inventories: add one class.

    The generation is optional on this call; when given it must match.
    409 when the class already has inventory on the provider.
    """
    with transaction.atomic():
        provider = _locked_provider(provider_uuid, generation)
        rc = ResourceClass.objects.filter(name=resource_class).first()
        if rc is None:
            raise errors.BadRequest(
                f"Unable to create inventory for resource provider {provider.uuid}: "
                f"No such resource class {resource_class}."
            )
        _check_spec(
            provider, resource_class, spec, reserved_may_equal_total=reserved_may_equal_total,
            action="create",
        )
        duplicate = errors.Conflict(
            f"Update conflict: Inventory for '{resource_class}' on resource provider "
            f"'{provider.uuid}' already exists.",
            code=errors.CONCURRENT_UPDATE,
        )
        if Inventory.objects.filter(resource_provider=provider, resource_class=rc).exists():
            raise duplicate
        try:
            with transaction.atomic():
                inv = Inventory.objects.create(
                    resource_provider=provider, resource_class=rc, **spec.as_dict()
                )
        except IntegrityError:
            raise duplicate
        bump_generations([provider])
    return provider, inv


def inventory_update(
    *,
    provider_uuid: str,
    resource_class: str,
    generation: int,
    spec: InventorySpec,
    reserved_may_equal_total: bool,
) -> tuple[ResourceProvider, Inventory]:
    """PUT /resource_providers/{uuid}/inventories/{resource_class}: change one record.

    400 when the provider has no inventory of that class. Shrinking the
    capacity below what is allocated is allowed (and logged).
    """
    with transaction.atomic():
        provider = _locked_provider(provider_uuid, generation)
        inv = (
            Inventory.objects.filter(
                resource_provider=provider, resource_class__name=resource_class
            )
            .select_related("resource_class")
            .first()
        ) if storable(resource_class) else None
        if inv is None:
            raise errors.BadRequest(
                f"Unable to update inventory for resource provider {provider.uuid}: "
                f"No inventory record with resource class {resource_class} found."
            )
        _check_spec(
            provider, resource_class, spec, reserved_may_equal_total=reserved_may_equal_total,
            action="update",
        )
        if _assign(inv, spec):
            inv.save(update_fields=[*FIELDS, "updated_at"])
        _warn_if_overcommitted(provider, [inv])
        bump_generations([provider])
    return provider, inv


def inventory_delete(*, provider_uuid: str, resource_class: str) -> ResourceProvider:
    """DELETE /resource_providers/{uuid}/inventories/{resource_class}.

    404 when there is no such inventory; 409 when it has allocations.
    """
    with transaction.atomic():
        provider = _locked_provider(provider_uuid)
        inv = (
            Inventory.objects.filter(
                resource_provider=provider, resource_class__name=resource_class
            )
            .first()
        ) if storable(resource_class) else None
        if inv is None:
            raise errors.NotFound(
                f"No inventory of class {resource_class} found for delete: "
                f"resource provider {provider.uuid} has none."
            )
        if _classes_in_use(provider, [inv.resource_class_id]):
            raise errors.Conflict(
                f"Unable to delete inventory of class {resource_class}: "
                f"Inventory for '{resource_class}' on resource provider "
                f"'{provider.uuid}' in use.",
                code=errors.INVENTORY_INUSE,
            )
        inv.delete()
        bump_generations([provider])
    return provider


def inventories_delete(*, provider_uuid: str) -> ResourceProvider:
    """DELETE /resource_providers/{uuid}/inventories (1.5+): remove every record.

    The generation is bumped even when there was nothing to delete.
    """
    with transaction.atomic():
        provider = _locked_provider(provider_uuid)
        rc_ids = list(
            Inventory.objects.filter(resource_provider=provider).values_list(
                "resource_class_id", flat=True
            )
        )
        busy = _classes_in_use(provider, rc_ids)
        if busy:
            raise _in_use_error(provider, busy)
        Inventory.objects.filter(resource_provider=provider).delete()
        bump_generations([provider])
    return provider
