"""Provider traits and inventories answer as upstream does (B02, B10, B11, B12, B18)."""
import pytest

from tests.factories import ResourceProviderFactory
from tests.fidelity.conftest import new_uuid


def test_putting_the_same_traits_leaves_the_generation(cloud, api):
    """B02: PUT .../traits with the set the provider already has (or with
    [] on a provider with none) changes nothing, generation included."""
    rp = cloud.provider()
    response = api.put(f"/resource_providers/{rp}/traits", mv="1.6",
                       json={"traits": [], "resource_provider_generation": 0})
    assert response.json()["resource_provider_generation"] == 0

    response = api.put(f"/resource_providers/{rp}/traits", mv="1.6", json={
        "traits": ["HW_CPU_X86_AVX2", "STORAGE_DISK_SSD"], "resource_provider_generation": 0})
    assert response.json()["resource_provider_generation"] == 1
    response = api.put(f"/resource_providers/{rp}/traits", mv="1.6", json={
        "traits": ["STORAGE_DISK_SSD", "HW_CPU_X86_AVX2"], "resource_provider_generation": 1})
    assert response.status_code == 200
    assert response.json()["resource_provider_generation"] == 1
    assert cloud.generation(rp) == 1


def test_deleting_traits_of_a_provider_with_none_leaves_the_generation(cloud, api):
    """B02: DELETE .../traits bumps only when there was a trait to remove."""
    bare = cloud.provider()
    assert api.delete(f"/resource_providers/{bare}/traits", mv="1.6").status_code == 204
    assert cloud.generation(bare) == 0

    api.put(f"/resource_providers/{bare}/traits", mv="1.6",
            json={"traits": ["STORAGE_DISK_SSD"], "resource_provider_generation": 0})
    assert api.delete(f"/resource_providers/{bare}/traits", mv="1.6").status_code == 204
    assert cloud.generation(bare) == 2


ZERO_CAPACITY = {"total": 2, "reserved": 1, "allocation_ratio": 0.5}


@pytest.mark.parametrize("mv, status", [("1.25", 400), ("1.26", 200)])
def test_zero_capacity_refused_before_1_26_on_put_all(cloud, api, mv, status):
    """B10: below 1.26 the capacity must be positive, whatever reserved is:
    int((2 - 1) * 0.5) is 0, refused; from 1.26 a capacity of 0 is allowed."""
    rp = cloud.provider()
    response = api.put(f"/resource_providers/{rp}/inventories", mv=mv, json={
        "resource_provider_generation": 0, "inventories": {"VCPU": ZERO_CAPACITY}})
    assert response.status_code == status, response.content
    if status == 400:
        assert "The reserved value is greater than or equal to total" in response.json()[
            "errors"][0]["detail"]
        assert api.get(f"/resource_providers/{rp}/inventories", mv=mv).json()[
            "inventories"] == {}


@pytest.mark.parametrize("method", ["post", "put_one"])
def test_zero_capacity_refused_before_1_26_on_one_record(cloud, api, method):
    """B10: the same rule on POST .../inventories and PUT .../inventories/{rc}."""
    rp = cloud.provider(inventory={"DISK_GB": {"total": 10}} if method == "put_one" else None)
    if method == "post":
        response = api.post(f"/resource_providers/{rp}/inventories", mv="1.17",
                            json={"resource_class": "DISK_GB", **ZERO_CAPACITY})
    else:
        response = api.put(f"/resource_providers/{rp}/inventories/DISK_GB", mv="1.17",
                           json={"resource_provider_generation": 1, **ZERO_CAPACITY})
    assert response.status_code == 400, response.content


def test_min_unit_above_max_unit_is_accepted(cloud, api):
    """B11: upstream stores min_unit 4 with max_unit 2 (nothing can then be
    allocated from it: every amount violates the constraints)."""
    rp = cloud.provider()
    response = api.put(f"/resource_providers/{rp}/inventories", mv="1.26", json={
        "resource_provider_generation": 0,
        "inventories": {"DISK_GB": {"total": 16, "min_unit": 4, "max_unit": 2}}})
    assert response.status_code == 200, response.content
    response = api.put(f"/resource_providers/{rp}/inventories/DISK_GB", mv="1.26", json={
        "resource_provider_generation": 1, "total": 16, "min_unit": 8, "max_unit": 4})
    assert response.status_code == 200, response.content
    assert cloud.claim(new_uuid(), {rp: {"DISK_GB": 4}}).status_code == 409


def test_post_inventory_ignores_a_stale_generation(cloud, api):
    """B12: POST .../inventories accepts any resource_provider_generation."""
    rp = cloud.provider()
    response = api.post(f"/resource_providers/{rp}/inventories", mv="1.20", json={
        "resource_class": "VCPU", "total": 4, "resource_provider_generation": 99})
    assert response.status_code == 201, response.content
    assert response.json()["resource_provider_generation"] == 1


def test_empty_inventories_have_no_last_modified(cloud, api):
    """B18: nothing to date, no Last-Modified (cache-control stays)."""
    rp = cloud.provider()
    response = api.get(f"/resource_providers/{rp}/inventories", mv="1.15")
    assert response.status_code == 200
    assert "last-modified" not in response
    assert response["cache-control"] == "no-cache"
    response = api.put(f"/resource_providers/{rp}/inventories", mv="1.15",
                       json={"resource_provider_generation": 0, "inventories": {}})
    assert "last-modified" not in response

    cloud.set_inventory(rp, {"VCPU": {"total": 4}})
    assert "last-modified" in api.get(f"/resource_providers/{rp}/inventories", mv="1.15")


@pytest.mark.parametrize("mv, ratio, status", [
    ("1.36", 0, 200),  # capacity 0, which 1.26 and later accept
    ("1.25", 0, 400),  # below 1.26 the capacity must be positive
    ("1.36", -1, 400),  # a negative capacity
])
def test_allocation_ratio_is_judged_by_the_capacity_it_gives(api, mv, ratio, status):
    # Upstream's schema sets no lower bound on allocation_ratio (a
    # differential run sent 0 and got 200 there, 400 here).
    rp = ResourceProviderFactory()
    r = api.put(f"/resource_providers/{rp.uuid}/inventories", mv=mv, json={
        "resource_provider_generation": 0,
        "inventories": {"VGPU": {"total": 2863, "max_unit": 2863, "step_size": 2,
                                 "allocation_ratio": ratio}}})
    assert r.status_code == status, r.content
    if status == 200:
        assert r.json()["inventories"]["VGPU"]["allocation_ratio"] == 0
    else:
        assert "reserved value is greater" in r.json()["errors"][0]["detail"]


def test_provider_usages_list_the_inventory_classes_only(api):
    """A provider's usages are per class of its inventory, as upstream sums
    them (inventories joined to allocations): an allocation of a class the
    provider has no inventory of (written around the API, e.g. by an import)
    is not listed."""
    from tests import factories as f

    rp = ResourceProviderFactory()
    f.InventoryFactory(resource_provider=rp, resource_class=f.resource_class("VCPU"), total=8)
    f.InventoryFactory(resource_provider=rp, resource_class=f.resource_class("MEMORY_MB"),
                       total=1024)
    f.AllocationFactory(resource_provider=rp, resource_class=f.resource_class("VCPU"), used=3)
    f.AllocationFactory(resource_provider=rp, resource_class=f.resource_class("DISK_GB"), used=9)
    usages = api.get(f"/resource_providers/{rp.uuid}/usages", mv="1.1").json()["usages"]
    assert usages == {"VCPU": 3, "MEMORY_MB": 0}
