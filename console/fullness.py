"""How full a provider is, worked out in SQL so that sorting and the
threshold run over every provider, not one page (the provider list and the
full-hosts page, through ``console.selectors``).

A provider's fullness in one class is used / capacity of that inventory,
capacity floored like ``Inventory.capacity`` (so the SQL and the page's
``Capacity.fraction`` agree to the last bit); an inventory with no capacity
left but something allocated counts as full. Its overall fullness is that
of its fullest class.
"""
from django.db.models import (
    Case,
    Exists,
    F,
    FloatField,
    IntegerField,
    OuterRef,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce, Floor

from allocations.models import Allocation
from providers.models import Inventory, capacity_expression
from resource_classes.models import ResourceClass


def _inventory_fullness():
    """Inventory rows of the outer provider, each annotated with ``frac``."""
    used = (Allocation.objects.filter(resource_provider_id=OuterRef("resource_provider_id"),
                                      resource_class_id=OuterRef("resource_class_id"))
            .order_by().values("resource_provider_id").annotate(s=Sum("used")).values("s"))
    return (Inventory.objects.filter(resource_provider_id=OuterRef("pk"))
            .annotate(cap=Floor(capacity_expression()),
                      held=Coalesce(Subquery(used, output_field=IntegerField()), 0))
            .annotate(frac=Case(
                When(cap__gt=0, then=Cast("held", FloatField()) / F("cap")),
                When(held__gt=0, then=Value(1.0)),
                default=Value(0.0), output_field=FloatField())))


def with_fullness(providers, resource_class: str = ""):
    """``providers`` annotated with ``fullness`` (0.0-1.0 and beyond when
    over-committed; None without inventory of the class): of
    ``resource_class``, or of the fullest class when it is empty."""
    rows = _inventory_fullness()
    if resource_class:
        rows = rows.filter(resource_class__name=resource_class)
    return providers.annotate(fullness=Subquery(
        rows.order_by("-frac").values("frac")[:1], output_field=FloatField()))


def sort_by_fullness(providers, *, descending=True):
    """Fullest first (or emptiest first), providers without the class last,
    then by name: the order holds across pages."""
    key = F("fullness").desc(nulls_last=True) if descending else F("fullness").asc(nulls_last=True)
    return providers.order_by(key, "name", "pk")


def full_at_least(providers, fraction: float, resource_class: str = ""):
    """The providers with at least one class (or ``resource_class``) used to
    ``fraction`` of its capacity or more."""
    rows = _inventory_fullness().filter(frac__gte=fraction)
    if resource_class:
        rows = rows.filter(resource_class__name=resource_class)
    return providers.filter(Exists(rows))


def inventory_class_names() -> list[str]:
    """The classes some provider has inventory of (the fullness choices)."""
    return list(ResourceClass.objects.filter(inventories__isnull=False).distinct()
                .order_by("name").values_list("name", flat=True))
