"""Two writers of the same catalog name at once (real transactions, PostgreSQL)."""
import pytest

from resource_classes.models import ResourceClass, Trait
from tests.racing import race
from tests.support.api import PlacementClient

pytestmark = [pytest.mark.needs_row_locks, pytest.mark.django_db(transaction=True)]


def test_two_posts_of_one_class_one_wins():
    client = PlacementClient(mv="1.2")
    statuses = race(
        [lambda: client.post("/resource_classes", json={"name": "CUSTOM_RACE"}).status_code] * 2
    )
    assert sorted(statuses) == [201, 409]
    assert ResourceClass.objects.filter(name="CUSTOM_RACE").count() == 1


def test_two_puts_of_one_class_one_creates():
    client = PlacementClient(mv="1.7")
    statuses = race([lambda: client.put("/resource_classes/CUSTOM_RACE").status_code] * 2)
    assert sorted(statuses) == [201, 204]
    assert ResourceClass.objects.filter(name="CUSTOM_RACE").count() == 1


def test_two_puts_of_one_trait_one_creates():
    client = PlacementClient(mv="1.6")
    statuses = race([lambda: client.put("/traits/CUSTOM_RACE").status_code] * 2)
    assert sorted(statuses) == [201, 204]
    assert Trait.objects.filter(name="CUSTOM_RACE").count() == 1


def test_delete_racing_rename_leaves_one_outcome():
    ResourceClass.objects.create(id=10000, name="CUSTOM_A")
    client = PlacementClient(mv="1.6")
    statuses = race(
        [
            lambda: client.delete("/resource_classes/CUSTOM_A").status_code,
            lambda: client.put("/resource_classes/CUSTOM_A", json={"name": "CUSTOM_B"}).status_code,
        ]
    )
    remaining = set(ResourceClass.objects.filter(name__startswith="CUSTOM_").values_list(
        "name", flat=True))
    # Either the delete went first (rename finds nothing) or the rename did
    # (delete finds nothing); never both, never neither.
    assert (statuses, remaining) in (([204, 404], set()), ([404, 200], {"CUSTOM_B"}))
