"""Writes to the resource class and trait catalogs.

Standard names (os-resource-classes, os-traits) are read-only: only
``CUSTOM_*`` entries may be created, renamed or deleted.  Every function is
one transaction; a name that another writer inserts at the same moment is
caught by the unique index and reported the same way as one that existed.
"""
import re

import os_resource_classes
import os_traits
from django.db import IntegrityError, connection, transaction
from django.db.models import Max, ProtectedError
from django.utils import timezone

from placement_core import errors
from placement_core.shared_schema import FIRST_CUSTOM_CLASS_ID, zero_is_an_id
from resource_classes.models import CUSTOM_PREFIX, ResourceClass, Trait

CUSTOM_NAME_RE = re.compile(r"^CUSTOM_[A-Z0-9_]+$")
NAME_MAX_LENGTH = 255

INVALID_TRAIT = (
    'The trait is invalid. A valid trait must be no longer than 255 characters, '
    'start with the prefix "CUSTOM_" and use following characters: '
    '"A"-"Z", "0"-"9" and "_"'
)


def is_valid_custom_name(name: str) -> bool:
    # fullmatch: "$" alone would also accept a trailing newline.
    return len(name) <= NAME_MAX_LENGTH and bool(CUSTOM_NAME_RE.fullmatch(name))


def storable(name: str) -> bool:
    """False for text no row can hold (PostgreSQL rejects NUL characters)."""
    return "\x00" not in name


def catalog_sync() -> dict:
    """Create every standard resource class and trait that is missing.

    Safe to run again (and concurrently): existing names are left alone.
    Returns how many of each were added.
    """
    added = {}
    names = list(os_resource_classes.STANDARDS)
    present = set(ResourceClass.objects.filter(name__in=names).values_list("name", flat=True))
    # Upstream's numbering: a standard class's id is its index in STANDARDS
    # (VCPU's is 0, which Django's MySQL backend will not write: raw SQL).
    missing = [(index, name) for index, name in enumerate(names) if name not in present]
    if missing:
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        try:
            with transaction.atomic(), zero_is_an_id(connection), connection.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO resource_classes (created_at, updated_at, id, name) "
                    "VALUES (%s, %s, %s, %s)", [(now, now, i, n) for i, n in missing])
        except IntegrityError:
            pass  # another process (this service or upstream) synced them first
    added["ResourceClass"] = len(missing)
    names = list(os_traits.get_traits())
    with transaction.atomic():
        present = set(Trait.objects.filter(name__in=names).values_list("name", flat=True))
        missing = [Trait(name=name) for name in names if name not in present]
        Trait.objects.bulk_create(missing, ignore_conflicts=True, batch_size=500)
    added["Trait"] = len(missing)
    return added


def class_insert(name: str) -> ResourceClass:
    """Insert the class ``name`` (its caller checked it) under upstream's numbering: one past
    the largest id, 10000 at least.  Another writer (this service or
    upstream) taking the same id first makes this one try the next;
    IntegrityError when the name itself is taken."""
    for _ in range(20):
        largest = ResourceClass.objects.aggregate(m=Max("id"))["m"] or 0
        try:
            with transaction.atomic():
                return ResourceClass.objects.create(
                    id=max(largest + 1, FIRST_CUSTOM_CLASS_ID), name=name)
        except IntegrityError:
            if ResourceClass.objects.filter(name=name).exists():
                raise
    raise errors.Conflict(f"Could not pick an id for resource class {name}: too many "
                          "concurrent creations; try again.")


# --- resource classes ------------------------------------------------------


def _require_custom_class_name(name: str) -> None:
    if not is_valid_custom_name(name):
        raise errors.BadRequest(
            f"Resource class name {name} is invalid: it must start with "
            f"{CUSTOM_PREFIX} and use only A-Z, 0-9 and _ (at most {NAME_MAX_LENGTH} characters)."
        )


def _class_not_found(name: str) -> errors.NotFound:
    return errors.NotFound(f"No such resource class {name}.")


def _lock_custom_class(name: str, action: str) -> ResourceClass:
    """Lock the custom class ``name``: 404 when absent, 400 for a standard one."""
    rc = (
        ResourceClass.objects.select_for_update().filter(name=name).first()
        if storable(name)
        else None
    )
    if rc is None:
        raise _class_not_found(name)
    if not rc.is_custom:
        raise errors.BadRequest(f"Cannot {action} standard resource class {name}")
    return rc


def resource_class_create(*, name: str) -> ResourceClass:
    """Add a custom resource class; 409 when the name is taken."""
    _require_custom_class_name(name)
    try:
        return class_insert(name)
    except IntegrityError:  # the unique index on name
        raise errors.Conflict(f"Conflicting resource class already exists: {name}")


def resource_class_ensure(*, name: str) -> tuple[ResourceClass, bool]:
    """Make sure the custom class ``name`` exists: (row, created)."""
    _require_custom_class_name(name)
    existing = ResourceClass.objects.filter(name=name).first()
    if existing is not None:
        return existing, False
    try:
        return class_insert(name), True
    except IntegrityError:
        # Someone created it between our look and our insert: it exists.
        return ResourceClass.objects.get(name=name), False


def resource_class_rename(*, name: str, new_name: str) -> ResourceClass:
    """Rename the custom class ``name`` (the 1.2 - 1.6 PUT)."""
    _require_custom_class_name(new_name)
    try:
        with transaction.atomic():
            rc = _lock_custom_class(name, "update")
            rc.name = new_name
            rc.save(update_fields=["name", "updated_at"])
    except IntegrityError:
        raise errors.Conflict(f"Resource class already exists: {new_name}")
    return rc


def resource_class_delete(*, name: str) -> None:
    """Delete the custom class ``name``; 409 while inventory or allocations use it."""
    in_use = errors.Conflict(
        f"Error in delete resource class: Class is in use in inventory ({name})."
    )
    try:
        with transaction.atomic():
            rc = _lock_custom_class(name, "delete")
            # Reverse relations of Inventory and Allocation: the apps above
            # this one are reached through the rows, not imported.
            if rc.inventories.exists() or rc.allocations.exists():
                raise in_use
            rc.delete()
    except (IntegrityError, ProtectedError):
        # An inventory or allocation arrived after our check.
        raise in_use


# --- traits ----------------------------------------------------------------


def trait_ensure(*, name: str) -> tuple[Trait, bool]:
    """Make sure the custom trait ``name`` exists: (row, created)."""
    if not is_valid_custom_name(name):
        raise errors.BadRequest(INVALID_TRAIT)
    existing = Trait.objects.filter(name=name).first()
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            return Trait.objects.create(name=name), True
    except IntegrityError:
        return Trait.objects.get(name=name), False


def trait_delete(*, name: str) -> None:
    """Delete the custom trait ``name``; 409 while a provider has it."""
    in_use = errors.Conflict(f"The trait {name} is in use by a resource provider.")
    try:
        with transaction.atomic():
            trait = (
                Trait.objects.select_for_update().filter(name=name).first()
                if storable(name)
                else None
            )
            if trait is None:
                raise errors.NotFound(f"No such trait(s): {name}.")
            if not trait.is_custom:
                raise errors.BadRequest(f"Cannot delete standard trait {name}.")
            if trait.providertrait_set.exists():  # ProviderTrait's reverse relation
                raise in_use
            trait.delete()
    except (IntegrityError, ProtectedError):
        raise in_use
