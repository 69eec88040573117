"""Reads: GET /resource_providers/{uuid}/inventories and /inventories/{rc}."""
import pytest

from tests.factories import InventoryFactory, ResourceProviderFactory, resource_class

pytestmark = pytest.mark.django_db

MISSING = "7260669a-e3d4-4867-aaa7-683e2ab6958c"


def detail(response):
    return response.json()["errors"][0]["detail"]


def test_list_empty(api):
    rp = ResourceProviderFactory(generation=3)
    response = api.get(f"/resource_providers/{rp.uuid}/inventories")
    assert response.status_code == 200
    assert response.json() == {"inventories": {}, "resource_provider_generation": 3}


def test_list_shows_every_field(api):
    rp = ResourceProviderFactory(generation=2)
    InventoryFactory(resource_provider=rp, total=8, max_unit=4, allocation_ratio=16.0)
    InventoryFactory(
        resource_provider=rp, resource_class=resource_class("DISK_GB"), total=2048,
        reserved=512, min_unit=10, max_unit=1024, step_size=10,
    )
    response = api.get(f"/resource_providers/{rp.uuid}/inventories")
    assert response.status_code == 200
    assert response.json() == {
        "resource_provider_generation": 2,
        "inventories": {
            "VCPU": {"total": 8, "reserved": 0, "min_unit": 1, "max_unit": 4,
                     "step_size": 1, "allocation_ratio": 16.0},
            "DISK_GB": {"total": 2048, "reserved": 512, "min_unit": 10, "max_unit": 1024,
                        "step_size": 10, "allocation_ratio": 1.0},
        },
    }


def test_list_only_this_providers_inventories(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp)
    InventoryFactory(resource_class=resource_class("DISK_GB"))  # another provider
    body = api.get(f"/resource_providers/{rp.uuid}/inventories").json()
    assert list(body["inventories"]) == ["VCPU"]


def test_list_query_count_does_not_grow(api, django_assert_max_num_queries):
    rp = ResourceProviderFactory()
    for name in ("VCPU", "MEMORY_MB", "DISK_GB", "IPV4_ADDRESS", "SRIOV_NET_VF"):
        InventoryFactory(resource_provider=rp, resource_class=resource_class(name))
    with django_assert_max_num_queries(4):
        response = api.get(f"/resource_providers/{rp.uuid}/inventories")
    assert len(response.json()["inventories"]) == 5


def test_list_missing_provider_404(api):
    response = api.get(f"/resource_providers/{MISSING}/inventories")
    assert response.status_code == 404
    assert f"No resource provider with uuid {MISSING} found" in detail(response)
    assert response.json()["errors"][0]["title"] == "Not Found"


@pytest.mark.parametrize("mv, cached", [("1.14", False), ("1.15", True)])
def test_list_cache_headers_from_1_15(api, mv, cached):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp)
    response = api.get(f"/resource_providers/{rp.uuid}/inventories", mv=mv)
    assert response.status_code == 200
    assert ("last-modified" in response) is cached
    assert ("cache-control" in response) is cached
    if cached:
        assert response["cache-control"] == "no-cache"


def test_show_one(api):
    rp = ResourceProviderFactory(generation=9)
    InventoryFactory(resource_provider=rp, total=4, max_unit=4, allocation_ratio=16.0)
    response = api.get(f"/resource_providers/{rp.uuid}/inventories/VCPU", mv="1.15")
    assert response.status_code == 200
    assert response.json() == {
        "resource_provider_generation": 9, "total": 4, "reserved": 0, "min_unit": 1,
        "max_unit": 4, "step_size": 1, "allocation_ratio": 16.0,
    }
    assert response["cache-control"] == "no-cache"
    assert response["last-modified"].endswith("GMT")


def test_show_one_no_cache_headers_before_1_15(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp)
    response = api.get(f"/resource_providers/{rp.uuid}/inventories/VCPU", mv="1.14")
    assert response.status_code == 200
    assert "last-modified" not in response and "cache-control" not in response


@pytest.mark.parametrize("rc", ["IPV4_ADDRESS", "HOUSE"])
def test_show_missing_class_404(api, rc):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp)
    response = api.get(f"/resource_providers/{rp.uuid}/inventories/{rc}")
    assert response.status_code == 404
    assert f"No inventory of class {rc} for {rp.uuid}" in detail(response)


def test_show_missing_provider_404(api):
    response = api.get(f"/resource_providers/{MISSING}/inventories/VCPU")
    assert response.status_code == 404
    assert "No resource provider with uuid" in detail(response)


def test_reads_need_policy(api_factory):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp)
    user = api_factory(token="someone")
    assert user.get(f"/resource_providers/{rp.uuid}/inventories").status_code == 403
    assert user.get(f"/resource_providers/{rp.uuid}/inventories/VCPU").status_code == 403


def test_reads_not_acceptable(api):
    rp = ResourceProviderFactory()
    response = api.get(f"/resource_providers/{rp.uuid}/inventories", headers={"accept": "text/plain"})
    assert response.status_code == 406


def test_unsupported_method_405(api):
    rp = ResourceProviderFactory()
    response = api.patch(f"/resource_providers/{rp.uuid}/inventories/VCPU")
    assert response.status_code == 405
    assert "GET" in response["allow"] and "DELETE" in response["allow"]
