"""The factories build consistent trees (root follows parent)."""
import pytest

from tests.factories import AllocationFactory, InventoryFactory, ResourceProviderFactory

pytestmark = pytest.mark.django_db


def test_root_provider_is_its_own_root():
    root = ResourceProviderFactory()
    root.refresh_from_db()
    assert root.root_id == root.pk
    assert root.parent_id is None


def test_child_shares_root_with_parent():
    root = ResourceProviderFactory()
    child = ResourceProviderFactory(parent=root)
    grandchild = ResourceProviderFactory(parent=child)
    grandchild.refresh_from_db()
    assert grandchild.root_id == root.pk


def test_inventory_and_allocation_defaults():
    inventory = InventoryFactory(total=4)
    assert inventory.max_unit == 4
    allocation = AllocationFactory(resource_provider=inventory.resource_provider, used=2)
    assert allocation.consumer.project.external_id
