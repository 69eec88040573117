"""Writes to the resource class and trait catalogs."""
import os_resource_classes
import os_traits
from django.db import transaction

from resource_classes.models import ResourceClass, Trait


def catalog_sync() -> dict:
    """Create every standard resource class and trait that is missing.

    Safe to run again (and concurrently): existing names are left alone.
    Returns how many of each were added.
    """
    added = {}
    for model, names in (
        (ResourceClass, list(os_resource_classes.STANDARDS)),
        (Trait, list(os_traits.get_traits())),
    ):
        with transaction.atomic():
            present = set(model.objects.filter(name__in=names).values_list("name", flat=True))
            missing = [model(name=name) for name in names if name not in present]
            model.objects.bulk_create(missing, ignore_conflicts=True, batch_size=500)
        added[model.__name__] = len(missing)
    return added
