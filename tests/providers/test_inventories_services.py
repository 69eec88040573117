"""inventory_services called directly (as the reshaper and the admin do)."""
import pytest
from django.db import transaction

from placement_core import errors
from providers import inventory_services as services
from providers.locking import lock_provider_by_uuid
from providers.models import Inventory, ResourceProvider
from tests.factories import AllocationFactory, InventoryFactory, ResourceProviderFactory

pytestmark = pytest.mark.django_db


def test_spec_defaults():
    spec = services.InventorySpec.from_body({"total": 5, "ignored": 1})
    assert spec.as_dict() == {"total": 5, "reserved": 0, "min_unit": 1,
                              "max_unit": 2147483647, "step_size": 1, "allocation_ratio": 1.0}


def test_apply_inventories_can_skip_in_use_check():
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp)
    AllocationFactory(resource_provider=rp)
    spec = services.InventorySpec(total=10)
    with transaction.atomic():
        locked = lock_provider_by_uuid(rp.uuid)
        with pytest.raises(errors.Conflict):
            with transaction.atomic():
                services.apply_inventories(locked, {"DISK_GB": spec},
                                           reserved_may_equal_total=False)
        rows = services.apply_inventories(locked, {"DISK_GB": spec},
                                          reserved_may_equal_total=False, check_in_use=False)
    assert [inv.resource_class.name for inv in rows] == ["DISK_GB"]
    assert list(Inventory.objects.filter(resource_provider=rp)
                .values_list("resource_class__name", flat=True)) == ["DISK_GB"]
    # apply_inventories leaves the generation to its caller.
    assert ResourceProvider.objects.get(pk=rp.pk).generation == 0


def test_failed_write_changes_nothing():
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=8)
    with pytest.raises(errors.BadRequest):
        services.inventories_replace(
            provider_uuid=rp.uuid, generation=0, reserved_may_equal_total=False,
            inventories={"VCPU": services.InventorySpec(total=1),
                         "DISK_GB": services.InventorySpec(total=1, reserved=5)},
        )
    assert Inventory.objects.get(resource_provider=rp).total == 8
    assert ResourceProvider.objects.get(pk=rp.pk).generation == 0


def test_missing_provider_404():
    with pytest.raises(errors.NotFound):
        services.inventories_delete(provider_uuid="nope")
