"""Two inventory writers at the same moment (real transactions, PostgreSQL)."""
import pytest

from providers.models import Inventory, ResourceProvider
from tests.factories import InventoryFactory, ResourceProviderFactory
from tests.racing import race
from tests.support.api import PlacementClient

pytestmark = [pytest.mark.needs_row_locks, pytest.mark.django_db(transaction=True)]


def test_two_replaces_with_same_generation_one_wins():
    rp = ResourceProviderFactory()
    client = PlacementClient()

    def put(total):
        return lambda: client.put(
            f"/resource_providers/{rp.uuid}/inventories",
            json={"resource_provider_generation": 0, "inventories": {"VCPU": {"total": total}}},
        ).status_code

    statuses = race([put(4), put(8)])
    assert sorted(statuses) == [200, 409]
    assert ResourceProvider.objects.get(pk=rp.pk).generation == 1
    assert Inventory.objects.filter(resource_provider=rp).count() == 1


def test_two_updates_of_one_class_with_same_generation_one_wins():
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=8)
    client = PlacementClient()

    def put(total):
        return lambda: client.put(
            f"/resource_providers/{rp.uuid}/inventories/VCPU",
            json={"resource_provider_generation": 0, "total": total},
        ).status_code

    statuses = race([put(4), put(16)])
    assert sorted(statuses) == [200, 409]
    assert ResourceProvider.objects.get(pk=rp.pk).generation == 1


def test_two_posts_of_one_class_one_wins():
    rp = ResourceProviderFactory()
    client = PlacementClient()

    def post():
        return client.post(
            f"/resource_providers/{rp.uuid}/inventories",
            json={"resource_class": "DISK_GB", "total": 100},
        ).status_code

    statuses = race([post, post])
    assert sorted(statuses) == [201, 409]
    assert ResourceProvider.objects.get(pk=rp.pk).generation == 1
