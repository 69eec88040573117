"""Reads of the resource class and trait catalogs."""
from datetime import datetime, timezone

from django.db.models import Exists, OuterRef

from placement_core import errors
from resource_classes.models import ResourceClass, Trait
from resource_classes.services import storable


def resource_class_list() -> tuple[list[ResourceClass], datetime]:
    """Every resource class in id order, and the last-modified time of the list."""
    classes = list(ResourceClass.objects.order_by("id"))
    # Upstream writes updated_at only on a change: NULL for a class never renamed.
    newest = max((rc.updated_at or rc.created_at for rc in classes), default=None)
    return classes, newest or datetime.now(timezone.utc)


def resource_class_get(*, name: str) -> ResourceClass:
    rc = ResourceClass.objects.filter(name=name).first() if storable(name) else None
    if rc is None:
        raise errors.NotFound(f"No such resource class {name}.")
    return rc


def trait_get(*, name: str) -> Trait:
    trait = Trait.objects.filter(name=name).first() if storable(name) else None
    if trait is None:
        raise errors.NotFound(f"No such trait(s): {name}.")
    return trait


def trait_list(
    *,
    names: list[str] | None = None,
    prefix: str | None = None,
    associated: bool | None = None,
) -> tuple[list[str], datetime]:
    """Trait names matching every given filter (AND), sorted, and the newest change.

    ``names``: only these; ``prefix``: names starting with it;
    ``associated``: True for traits some provider has, False for the others.
    """
    queryset = Trait.objects.all()
    if names is not None:
        queryset = queryset.filter(name__in=[name for name in names if storable(name)])
    if prefix is not None:
        if not storable(prefix):
            queryset = queryset.none()
        else:
            queryset = queryset.filter(name__startswith=prefix)
    if associated is not None:
        # The provider-trait link table, reached from this side (no import of
        # the providers app, which sits above this one).
        links = Trait.resource_providers.through
        used = Exists(links.objects.filter(trait=OuterRef("pk")))
        queryset = queryset.filter(used) if associated else queryset.exclude(used)
    rows = list(queryset.order_by("name").values_list("name", "updated_at", "created_at"))
    newest = max((changed or made for _, changed, made in rows), default=None)
    return [name for name, _, _ in rows], newest or datetime.now(timezone.utc)
