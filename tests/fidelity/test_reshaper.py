"""POST /reshaper answers as upstream does (B03, B05, B08, B09)."""
from tests.fidelity.conftest import PROJECT, USER, new_uuid
from tests.support.api import PlacementClient

RESHAPER = "1.30"


def _reshape(api, inventories, allocations):
    # The reshaper's default policy wants the service role.
    return PlacementClient(roles="admin,service").post(
        "/reshaper", mv=RESHAPER, json={"inventories": inventories, "allocations": allocations})


def test_provider_given_empty_inventories_is_bumped_once(cloud, api):
    """B03: a provider whose new set is {} gains 1; one with a new set 2."""
    root = cloud.provider(inventory={"DISK_GB": {"total": 100}})
    child = cloud.provider(parent=root)
    root_gen, child_gen = cloud.generation(root), cloud.generation(child)

    response = _reshape(api, {
        root: {"resource_provider_generation": root_gen, "inventories": {}},
        child: {"resource_provider_generation": child_gen,
                "inventories": {"DISK_GB": {"total": 100}}},
    }, {})

    assert response.status_code == 204, response.content
    assert (cloud.generation(root), cloud.generation(child)) == (root_gen + 1, child_gen + 2)


def test_reshape_moving_allocations_counts_generations_as_upstream(cloud, api):
    """B03/B04: Nova's reshape: the root loses its DISK_GB to the child and
    the consumer's allocation follows."""
    root = cloud.provider(inventory={"DISK_GB": {"total": 100}})
    child = cloud.provider(parent=root)
    consumer = new_uuid()
    assert cloud.claim(consumer, {root: {"DISK_GB": 10}}).status_code == 204
    root_gen, child_gen = cloud.generation(root), cloud.generation(child)

    response = _reshape(api, {
        root: {"resource_provider_generation": root_gen, "inventories": {}},
        child: {"resource_provider_generation": child_gen,
                "inventories": {"DISK_GB": {"total": 100}}},
    }, {consumer: {"allocations": {child: {"resources": {"DISK_GB": 10}}},
                   "project_id": PROJECT, "user_id": USER, "consumer_generation": 1}})

    assert response.status_code == 204, response.content
    # root: its final inventory only; child: interim, allocations, final.
    assert (cloud.generation(root), cloud.generation(child)) == (root_gen + 1, child_gen + 3)


def test_empty_inventories_object_is_refused(api):
    """B08: upstream's schema wants at least one provider in inventories."""
    response = _reshape(api, {}, {})
    assert response.status_code == 400
    assert "inventories" in response.json()["errors"][0]["detail"]


def test_removing_inventory_still_allocated_is_inventory_in_use(cloud, api):
    """B09: the allocation stays on a class the provider loses: upstream's
    409 placement.inventory.inuse with its in-use text, and nothing moves."""
    root = cloud.provider(inventory={"DISK_GB": {"total": 100}})
    child = cloud.provider(parent=root)
    consumer = new_uuid()
    assert cloud.claim(consumer, {root: {"DISK_GB": 10}}).status_code == 204
    root_gen = cloud.generation(root)

    response = _reshape(api, {
        root: {"resource_provider_generation": root_gen, "inventories": {}},
        child: {"resource_provider_generation": 0, "inventories": {"DISK_GB": {"total": 100}}},
    }, {consumer: {"allocations": {root: {"resources": {"DISK_GB": 10}}},
                   "project_id": PROJECT, "user_id": USER, "consumer_generation": 1}})

    assert response.status_code == 409
    error = response.json()["errors"][0]
    assert error["code"] == "placement.inventory.inuse"
    assert (f"update conflict: Inventory for 'DISK_GB' on resource provider '{root}' in use."
            in error["detail"])
    assert cloud.generation(root) == root_gen
    assert api.get(f"/resource_providers/{child}/inventories", mv="1.30").json()[
        "inventories"] == {}


def test_reshape_on_an_over_capacity_provider_that_keeps_usage_is_allowed(cloud, api):
    """B05: the same no-worse rule as PUT/POST /allocations."""
    rp = cloud.provider(inventory={"VCPU": {"total": 4}})
    consumer = new_uuid()
    assert cloud.claim(consumer, {rp: {"VCPU": 4}}).status_code == 204

    response = _reshape(api, {
        rp: {"resource_provider_generation": cloud.generation(rp),
             "inventories": {"VCPU": {"total": 2}}},
    }, {consumer: {"allocations": {rp: {"resources": {"VCPU": 4}}},
                   "project_id": PROJECT, "user_id": USER, "consumer_generation": 1}})

    assert response.status_code == 204, response.content
