"""Reads of a resource provider's inventories (the writes: inventory_services)."""
from datetime import datetime, timezone

from placement_core import errors
from placement_core.api import UNDATED
from providers.models import Inventory, ResourceProvider
from resource_classes.services import storable


def inventory_list(*, provider: ResourceProvider) -> tuple[list[Inventory], object]:
    """The provider's inventories (by class name) and their newest change time."""
    rows = list(
        Inventory.objects.filter(resource_provider=provider)
        .select_related("resource_class")
        .order_by("resource_class__name")
    )
    return rows, last_modified(rows)


def inventory_get(*, provider: ResourceProvider, resource_class: str) -> Inventory:
    """One inventory record; 404 when the provider has none of that class."""
    inv = (
        Inventory.objects.filter(resource_provider=provider, resource_class__name=resource_class)
        .select_related("resource_class")
        .first()
    ) if storable(resource_class) else None
    if inv is None:
        raise errors.NotFound(f"No inventory of class {resource_class} for {provider.uuid}")
    return inv


def last_modified(rows):
    """The newest change time of ``rows``; ``UNDATED`` (no Last-Modified
    header, as upstream) when there are none."""
    if not rows:
        return UNDATED
    newest = max((row.updated_at or row.created_at for row in rows), default=None)
    return newest or datetime.now(timezone.utc)
