"""Deleting a provider that has children and allocations: the children are
reported, as upstream does (cannot_delete_parent before inuse)."""
import pytest

from providers.models import ResourceProvider
from tests.factories import AllocationFactory, InventoryFactory, ResourceProviderFactory

pytestmark = pytest.mark.django_db


def test_children_are_checked_before_allocations(api):
    parent = ResourceProviderFactory()
    child = ResourceProviderFactory(parent=parent, root=parent)
    InventoryFactory(resource_provider=parent, total=8)
    AllocationFactory(resource_provider=parent, used=1)
    response = api.delete(f"/resource_providers/{parent.uuid}", mv="1.39")
    assert response.status_code == 409
    assert response.json()["errors"][0]["code"] == "placement.resource_provider.cannot_delete_parent"
    assert ResourceProvider.objects.filter(pk__in=[parent.pk, child.pk]).count() == 2


def test_a_leaf_with_allocations_is_in_use(api):
    parent = ResourceProviderFactory()
    child = ResourceProviderFactory(parent=parent, root=parent)
    InventoryFactory(resource_provider=child, total=8)
    AllocationFactory(resource_provider=child, used=1)
    response = api.delete(f"/resource_providers/{child.uuid}", mv="1.39")
    assert response.status_code == 409
    assert response.json()["errors"][0]["code"] == "placement.resource_provider.inuse"
