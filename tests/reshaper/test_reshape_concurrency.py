"""Reshapes racing each other and allocation writers (real transactions, PostgreSQL)."""
import pytest

from allocations.models import Consumer
from allocations.services import allocations_set
from placement_core.errors import PlacementError
from providers.models import ResourceProvider
from tests.racing import race
from tests.reshaper.world import World, holdings, inventory_of
from tests.support.api import PlacementClient

pytestmark = [pytest.mark.needs_row_locks, pytest.mark.django_db(transaction=True)]


def _post(body):
    client = PlacementClient(token="nova", roles="service")
    return lambda: client.post("/reshaper", mv="1.30", json=body).status_code


def test_two_identical_reshapes_one_wins():
    world = World()
    statuses = race([_post(world.body()), _post(world.body())], status_of=(PlacementError,))
    assert sorted(statuses) == [204, 409]
    assert inventory_of(world.gpu1) == {"VGPU": 2}
    assert ResourceProvider.objects.get(pk=world.root.pk).generation == 5 + 3
    assert Consumer.objects.get(pk=world.c1.pk).generation == 2


def test_reshapes_naming_providers_in_opposite_orders_do_not_deadlock():
    world = World()
    first = world.body()
    second = world.body()
    second["inventories"] = dict(reversed(list(second["inventories"].items())))
    second["allocations"] = dict(reversed(list(second["allocations"].items())))
    statuses = race([_post(first), _post(second)], status_of=(PlacementError,))
    assert sorted(statuses) == [204, 409]


def test_reshape_racing_an_allocation_write_on_the_same_consumer():
    world = World()

    def move_c1_elsewhere():
        allocations_set(
            consumer_uuid=world.c1.uuid,
            allocations={world.root.uuid: {"VCPU": 1}},
            project_id=world.c1.project.external_id,
            user_id=world.c1.user.external_id,
            consumer_generation=1,
        )
        return 200

    statuses = race([_post(world.body()), move_c1_elsewhere], status_of=(PlacementError,))
    assert sorted(statuses) in ([200, 409], [204, 409])
    assert Consumer.objects.get(pk=world.c1.pk).generation == 2
    if statuses[0] == 204:
        assert holdings(world.c1.uuid)[world.gpu1.uuid] == {"VGPU": 1}
    else:
        assert holdings(world.c1.uuid) == {world.root.uuid: {"VCPU": 1}}
        assert inventory_of(world.root) == {"VCPU": 8, "MEMORY_MB": 4096, "VGPU": 4}
