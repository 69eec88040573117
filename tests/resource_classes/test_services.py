"""The catalog services called directly: races, guards, and the sync."""
from unittest import mock

import os_resource_classes
import os_traits
import pytest
from django.db import IntegrityError

from placement_core import errors
from resource_classes import services
from resource_classes.models import ResourceClass, Trait
from tests.factories import (
    InventoryFactory,
    ResourceClassFactory,
    ResourceProviderFactory,
    TraitFactory,
)

pytestmark = pytest.mark.django_db


def test_catalog_sync_is_idempotent():
    assert services.catalog_sync() == {"ResourceClass": 0, "Trait": 0}
    assert ResourceClass.objects.filter(name__in=os_resource_classes.STANDARDS).count() == len(
        os_resource_classes.STANDARDS
    )
    assert Trait.objects.filter(name__in=os_traits.get_traits()).count() == len(
        os_traits.get_traits()
    )


def test_catalog_sync_restores_missing_standard_names():
    Trait.objects.filter(name="HW_CPU_X86_SSE").delete()
    assert services.catalog_sync()["Trait"] == 1
    assert Trait.objects.filter(name="HW_CPU_X86_SSE").exists()


@pytest.mark.parametrize("name", ["VCPU", "CUSTOM_lower", "CUSTOM_", "CUSTOM_" + "A" * 249])
def test_services_refuse_non_custom_names(name):
    with pytest.raises(errors.BadRequest):
        services.resource_class_create(name=name)
    with pytest.raises(errors.BadRequest):
        services.resource_class_ensure(name=name)
    with pytest.raises(errors.BadRequest):
        services.trait_ensure(name=name)


def test_ensure_losing_an_insert_race_reports_existing():
    """Another writer inserts the same name between our look and our insert."""
    winner = ResourceClassFactory(name="CUSTOM_RACE")
    real_filter = ResourceClass.objects.filter

    with mock.patch.object(ResourceClass.objects, "filter") as patched:
        patched.side_effect = lambda *a, **k: mock.Mock(first=lambda: None)
        with mock.patch.object(ResourceClass.objects, "create", side_effect=IntegrityError):
            rc, created = services.resource_class_ensure(name="CUSTOM_RACE")
    assert (rc.pk, created) == (winner.pk, False)
    assert real_filter(name="CUSTOM_RACE").count() == 1


def test_trait_ensure_losing_an_insert_race_reports_existing():
    winner = TraitFactory(name="CUSTOM_RACE")
    with mock.patch.object(Trait.objects, "filter") as patched:
        patched.side_effect = lambda *a, **k: mock.Mock(first=lambda: None)
        with mock.patch.object(Trait.objects, "create", side_effect=IntegrityError):
            trait, created = services.trait_ensure(name="CUSTOM_RACE")
    assert (trait.pk, created) == (winner.pk, False)


def test_create_losing_an_insert_race_is_conflict():
    with mock.patch.object(ResourceClass.objects, "create", side_effect=IntegrityError):
        with pytest.raises(errors.Conflict):
            services.resource_class_create(name="CUSTOM_RACE")


def test_delete_when_inventory_arrives_late_is_conflict():
    rc = ResourceClassFactory(name="CUSTOM_LATE")
    with mock.patch.object(ResourceClass, "delete", side_effect=IntegrityError):
        with pytest.raises(errors.Conflict):
            services.resource_class_delete(name="CUSTOM_LATE")
    assert ResourceClass.objects.filter(pk=rc.pk).exists()


def test_rename_keeps_inventory_pointing_at_the_class():
    rc = ResourceClassFactory(name="CUSTOM_OLD")
    inventory = InventoryFactory(resource_class=rc, resource_provider=ResourceProviderFactory())
    services.resource_class_rename(name="CUSTOM_OLD", new_name="CUSTOM_NEW")
    inventory.refresh_from_db()
    assert inventory.resource_class.name == "CUSTOM_NEW"


def test_rename_to_same_name_is_fine():
    ResourceClassFactory(name="CUSTOM_SAME")
    assert services.resource_class_rename(name="CUSTOM_SAME", new_name="CUSTOM_SAME").name == (
        "CUSTOM_SAME"
    )
