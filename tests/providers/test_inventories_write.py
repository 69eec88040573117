"""Writes: PUT/POST/DELETE on /resource_providers/{uuid}/inventories[/{rc}]."""
import pytest

from providers.models import Inventory, ResourceProvider
from tests.factories import (
    AllocationFactory,
    InventoryFactory,
    ResourceClassFactory,
    ResourceProviderFactory,
    resource_class,
)

pytestmark = pytest.mark.django_db

MISSING = "7260669a-e3d4-4867-aaa7-683e2ab6958c"
MAX_INT = 2147483647


def detail(response):
    return response.json()["errors"][0]["detail"]


def code(response):
    return response.json()["errors"][0].get("code")


def generation(rp):
    return ResourceProvider.objects.get(pk=rp.pk).generation


def inventories(rp):
    return {
        inv.resource_class.name: inv
        for inv in Inventory.objects.filter(resource_provider=rp).select_related("resource_class")
    }


def url(rp, rc=None):
    base = f"/resource_providers/{rp.uuid}/inventories"
    return f"{base}/{rc}" if rc else base


# --- PUT /inventories (replace all) ------------------------------------------


def test_replace_creates_with_defaults_and_bumps(api):
    rp = ResourceProviderFactory()
    response = api.put(url(rp), json={
        "resource_provider_generation": 0,
        "inventories": {"IPV4_ADDRESS": {"total": 253}, "DISK_GB": {"total": 1024}},
    })
    assert response.status_code == 200
    body = response.json()
    assert body["resource_provider_generation"] == 1
    assert body["inventories"]["IPV4_ADDRESS"] == {
        "total": 253, "reserved": 0, "min_unit": 1, "max_unit": MAX_INT,
        "step_size": 1, "allocation_ratio": 1.0,
    }
    assert set(inventories(rp)) == {"IPV4_ADDRESS", "DISK_GB"}
    assert generation(rp) == 1


def test_replace_updates_adds_and_removes(api):
    rp = ResourceProviderFactory(generation=4)
    InventoryFactory(resource_provider=rp, total=8)
    InventoryFactory(resource_provider=rp, resource_class=resource_class("DISK_GB"), total=10)
    response = api.put(url(rp), json={
        "resource_provider_generation": 4,
        "inventories": {"VCPU": {"total": 16, "allocation_ratio": 2.0},
                        "MEMORY_MB": {"total": 4096, "step_size": 256}},
    })
    assert response.status_code == 200
    rows = inventories(rp)
    assert set(rows) == {"VCPU", "MEMORY_MB"}
    assert rows["VCPU"].total == 16 and rows["VCPU"].allocation_ratio == 2.0
    assert rows["MEMORY_MB"].step_size == 256
    assert generation(rp) == 5


def test_replace_with_empty_set_deletes_all(api):
    rp = ResourceProviderFactory(generation=11)
    InventoryFactory(resource_provider=rp)
    response = api.put(url(rp), mv="1.4", json={"resource_provider_generation": 11,
                                                 "inventories": {}})
    assert response.status_code == 200
    assert response.json() == {"resource_provider_generation": 12, "inventories": {}}
    assert inventories(rp) == {}


def test_replace_cache_headers_from_1_15(api):
    rp = ResourceProviderFactory()
    body = {"resource_provider_generation": 0, "inventories": {"VCPU": {"total": 1}}}
    response = api.put(url(rp), mv="1.15", json=body)
    assert response.status_code == 200
    assert response["cache-control"] == "no-cache" and "last-modified" in response
    body["resource_provider_generation"] = 1
    response = api.put(url(rp), mv="1.14", json=body)
    assert "last-modified" not in response


def test_replace_generation_conflict(api):
    rp = ResourceProviderFactory(generation=2)
    InventoryFactory(resource_provider=rp, total=8)
    response = api.put(url(rp), mv="1.23", json={
        "resource_provider_generation": 99, "inventories": {"VCPU": {"total": 253}},
    })
    assert response.status_code == 409
    assert "resource provider generation conflict" in detail(response)
    assert code(response) == "placement.concurrent_update"
    assert inventories(rp)["VCPU"].total == 8
    assert generation(rp) == 2


def test_two_writers_same_generation_one_conflicts(api):
    rp = ResourceProviderFactory()
    first = api.put(url(rp), json={"resource_provider_generation": 0,
                                   "inventories": {"VCPU": {"total": 4}}})
    second = api.put(url(rp), json={"resource_provider_generation": 0,
                                    "inventories": {"VCPU": {"total": 8}}})
    assert (first.status_code, second.status_code) == (200, 409)
    assert inventories(rp)["VCPU"].total == 4


def test_replace_unknown_class_400(api):
    rp = ResourceProviderFactory()
    response = api.put(url(rp), json={"resource_provider_generation": 0,
                                      "inventories": {"HOUSE": {"total": 253}}})
    assert response.status_code == 400
    assert "Unknown resource class in inventory" in detail(response)
    assert generation(rp) == 0


def test_replace_bad_class_name_pattern_400(api):
    rp = ResourceProviderFactory()
    response = api.put(url(rp), json={"resource_provider_generation": 0,
                                      "inventories": {"house": {"total": 253}}})
    assert response.status_code == 400
    assert "JSON does not validate" in detail(response)


@pytest.mark.parametrize("mv, reserved, status, phrase", [
    ("1.25", 512, 400, "greater than or equal to total"),
    ("1.25", 253, 400, "greater than or equal to total"),
    ("1.26", 253, 200, None),
    ("1.26", 512, 400, "greater than total"),
])
def test_replace_reserved_vs_total(api, mv, reserved, status, phrase):
    rp = ResourceProviderFactory()
    response = api.put(url(rp), mv=mv, json={
        "resource_provider_generation": 0,
        "inventories": {"IPV4_ADDRESS": {"total": 253, "reserved": reserved}},
    })
    assert response.status_code == status
    if phrase:
        assert "Unable to update inventory" in detail(response)
        assert phrase in detail(response)
        assert inventories(rp) == {}


@pytest.mark.parametrize("record, field", [
    ({"total": MAX_INT + 1}, "total"),
    ({"total": 10, "reserved": MAX_INT + 1}, "reserved"),
    ({"total": 10, "allocation_ratio": 3.40282e39}, "allocation_ratio"),
])
def test_replace_field_maximum(api, record, field):
    rp = ResourceProviderFactory()
    response = api.put(url(rp), json={"resource_provider_generation": 0,
                                      "inventories": {"DISK_GB": record}})
    assert response.status_code == 400
    assert "Failed validating 'maximum'" in detail(response)


@pytest.mark.parametrize("body", [
    {"inventories": {}},
    {"resource_provider_generation": 0},
    {"resource_provider_generation": 0, "inventories": {"VCPU": {}}},
    {"resource_provider_generation": 0, "inventories": {"VCPU": {"total": 1, "color": "red"}}},
    {"resource_provider_generation": "0", "inventories": {}},
    {"resource_provider_generation": 0, "inventories": {}, "extra": 1},
])
def test_replace_schema_errors(api, body):
    rp = ResourceProviderFactory()
    response = api.put(url(rp), json=body)
    assert response.status_code == 400
    assert "JSON does not validate" in detail(response)


def test_replace_missing_provider_404(api):
    response = api.put(f"/resource_providers/{MISSING}/inventories",
                       json={"resource_provider_generation": 0, "inventories": {}})
    assert response.status_code == 404


def test_replace_needs_json_content_type(api):
    rp = ResourceProviderFactory()
    response = api.put(url(rp), data=b"{}", content_type="text/plain")
    assert response.status_code == 415


def test_replace_malformed_json(api):
    rp = ResourceProviderFactory()
    response = api.put(url(rp), data=b'{"foo": }', content_type="application/json")
    assert response.status_code == 400
    assert "Malformed JSON" in detail(response)


def test_replace_dropping_class_in_use_409(api):
    rp = ResourceProviderFactory(generation=1)
    InventoryFactory(resource_provider=rp, total=8)
    InventoryFactory(resource_provider=rp, resource_class=resource_class("DISK_GB"), total=10)
    AllocationFactory(resource_provider=rp, used=2)
    response = api.put(url(rp), mv="1.23", json={"resource_provider_generation": 1,
                                                 "inventories": {"DISK_GB": {"total": 20}}})
    assert response.status_code == 409
    assert code(response) == "placement.inventory.inuse"
    assert "VCPU" in detail(response)
    rows = inventories(rp)
    assert set(rows) == {"VCPU", "DISK_GB"} and rows["DISK_GB"].total == 10
    assert generation(rp) == 1


def test_replace_dropping_unused_class_while_other_in_use(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=8)
    InventoryFactory(resource_provider=rp, resource_class=resource_class("DISK_GB"), total=10)
    AllocationFactory(resource_provider=rp, used=2)
    response = api.put(url(rp), json={"resource_provider_generation": 0,
                                      "inventories": {"VCPU": {"total": 8}}})
    assert response.status_code == 200
    assert set(inventories(rp)) == {"VCPU"}


def test_replace_shrinking_below_usage_is_allowed(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=8)
    AllocationFactory(resource_provider=rp, used=6)
    response = api.put(url(rp), json={"resource_provider_generation": 0,
                                      "inventories": {"VCPU": {"total": 2}}})
    assert response.status_code == 200
    assert inventories(rp)["VCPU"].total == 2


# --- POST /inventories (create one) ------------------------------------------


def test_create(api):
    rp = ResourceProviderFactory()
    response = api.post(url(rp), json={
        "resource_class": "DISK_GB", "total": 2048, "reserved": 512, "min_unit": 10,
        "max_unit": 1024, "step_size": 10, "allocation_ratio": 1.0,
    })
    assert response.status_code == 201
    assert response["location"] == f"http://testserver/resource_providers/{rp.uuid}/inventories/DISK_GB"
    assert response.json() == {
        "resource_provider_generation": 1, "total": 2048, "reserved": 512, "min_unit": 10,
        "max_unit": 1024, "step_size": 10, "allocation_ratio": 1.0,
    }
    assert inventories(rp)["DISK_GB"].max_unit == 1024
    assert generation(rp) == 1


def test_create_defaults(api):
    rp = ResourceProviderFactory()
    response = api.post(url(rp), json={"resource_class": "VCPU", "total": 4})
    assert response.status_code == 201
    body = response.json()
    assert (body["reserved"], body["min_unit"], body["max_unit"], body["step_size"],
            body["allocation_ratio"]) == (0, 1, MAX_INT, 1, 1.0)


def test_create_custom_class(api):
    rp = ResourceProviderFactory()
    ResourceClassFactory(name="CUSTOM_GOLD")
    response = api.post(url(rp), json={"resource_class": "CUSTOM_GOLD", "total": 5})
    assert response.status_code == 201
    assert "CUSTOM_GOLD" in inventories(rp)


def test_create_duplicate_409(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, resource_class=resource_class("DISK_GB"))
    response = api.post(url(rp), json={"resource_class": "DISK_GB", "total": 2048})
    assert response.status_code == 409
    assert "Update conflict" in detail(response)
    assert generation(rp) == 0


def test_create_with_matching_generation(api):
    rp = ResourceProviderFactory(generation=3)
    response = api.post(url(rp), json={"resource_class": "VCPU", "total": 4,
                                       "resource_provider_generation": 3})
    assert response.status_code == 201
    assert response.json()["resource_provider_generation"] == 4


def test_create_ignores_a_stale_generation(api):
    """As upstream: POST does not check resource_provider_generation."""
    rp = ResourceProviderFactory(generation=3)
    response = api.post(url(rp), mv="1.23", json={"resource_class": "VCPU", "total": 4,
                                                  "resource_provider_generation": 1})
    assert response.status_code == 201
    assert response.json()["resource_provider_generation"] == 4
    assert set(inventories(rp)) == {"VCPU"}


def test_create_unknown_class_400(api):
    rp = ResourceProviderFactory()
    response = api.post(url(rp), json={"resource_class": "NO_CLASS_14", "total": 2048})
    assert response.status_code == 400
    assert "No such resource class NO_CLASS_14" in detail(response)


def test_create_reserved_above_total_400(api):
    rp = ResourceProviderFactory()
    response = api.post(url(rp), json={"resource_class": "DISK_GB", "total": 256,
                                       "reserved": 512})
    assert response.status_code == 400
    assert "Unable to create inventory for resource provider" in detail(response)
    assert inventories(rp) == {}


@pytest.mark.parametrize("mv, status", [("1.25", 400), ("1.26", 201)])
def test_create_reserved_equal_total(api, mv, status):
    rp = ResourceProviderFactory()
    response = api.post(url(rp), mv=mv, json={"resource_class": "DISK_GB", "total": 256,
                                              "reserved": 256})
    assert response.status_code == status


@pytest.mark.parametrize("body, message", [
    ({"resource_class": "DISK_GB"}, "'total' is a required property"),
    ({"total": 1}, "'resource_class' is a required property"),
    ({"resource_class": "DISK_GB", "total": -1}, "-1 is less than the minimum of 1"),
    ({"resource_class": "DISK_GB", "total": 0},
     "Failed validating 'minimum' in schema['properties']['total']"),
    ({"resource_class": "DISK_GB", "total": 10, "min_unit": 0},
     "Failed validating 'minimum' in schema['properties']['min_unit']"),
    ({"resource_class": "DISK_GB", "total": 10, "max_unit": 0},
     "Failed validating 'minimum' in schema['properties']['max_unit']"),
    ({"resource_class": "DISK_GB", "total": 10, "step_size": 0},
     "Failed validating 'minimum' in schema['properties']['step_size']"),
    ({"resource_class": "DISK_GB", "total": 10, "reserved": -1},
     "Failed validating 'minimum' in schema['properties']['reserved']"),
    ({"resource_class": "DISK_GB", "total": MAX_INT + 1}, "Failed validating 'maximum'"),
    ({"resource_class": "DISK_GB", "total": 10, "step_size": MAX_INT + 1},
     "Failed validating 'maximum'"),
    ({"resource_class": "DISK_GB", "total": 10, "allocation_ratio": 3.40282e39},
     "Failed validating 'maximum'"),
    ({"resource_class": "bad_class", "total": 10}, "JSON does not validate"),
    ({"resource_class": "DISK_GB", "total": True}, "JSON does not validate"),
    ({"resource_class": "DISK_GB", "total": "10"}, "JSON does not validate"),
])
def test_create_schema_errors(api, body, message):
    rp = ResourceProviderFactory()
    response = api.post(url(rp), json=body)
    assert response.status_code == 400
    assert "JSON does not validate" in detail(response)
    assert message in detail(response)
    assert inventories(rp) == {}


def test_create_missing_provider_404(api):
    response = api.post(f"/resource_providers/{MISSING}/inventories",
                        json={"resource_class": "VCPU", "total": 1})
    assert response.status_code == 404


# --- PUT /inventories/{rc} (update one) ----------------------------------------


def test_update_one(api):
    rp = ResourceProviderFactory(generation=1)
    InventoryFactory(resource_provider=rp, resource_class=resource_class("DISK_GB"), total=2048,
                     reserved=512, min_unit=10, max_unit=1024, step_size=10)
    response = api.put(url(rp, "DISK_GB"), json={
        "resource_provider_generation": 1, "total": 2048, "reserved": 1024, "min_unit": 10,
        "max_unit": 1024, "step_size": 10, "allocation_ratio": 1.0,
    })
    assert response.status_code == 200
    assert response["content-type"].startswith("application/json")
    assert response.json()["reserved"] == 1024
    assert response.json()["resource_provider_generation"] == 2
    assert inventories(rp)["DISK_GB"].reserved == 1024
    assert generation(rp) == 2


def test_update_one_resets_omitted_fields_to_defaults(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=8, reserved=2, max_unit=8, step_size=2)
    response = api.put(url(rp, "VCPU"), json={"resource_provider_generation": 0, "total": 16})
    assert response.status_code == 200
    row = inventories(rp)["VCPU"]
    assert (row.total, row.reserved, row.max_unit, row.step_size) == (16, 0, MAX_INT, 1)


def test_update_one_generation_conflict(api):
    rp = ResourceProviderFactory(generation=2)
    InventoryFactory(resource_provider=rp, total=8)
    response = api.put(url(rp, "VCPU"), mv="1.23",
                       json={"resource_provider_generation": 5, "total": 2048})
    assert response.status_code == 409
    assert "resource provider generation conflict" in detail(response)
    assert code(response) == "placement.concurrent_update"
    assert inventories(rp)["VCPU"].total == 8


def test_update_one_two_writers_same_generation(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=8)
    first = api.put(url(rp, "VCPU"), json={"resource_provider_generation": 0, "total": 4})
    second = api.put(url(rp, "VCPU"), json={"resource_provider_generation": 0, "total": 2})
    assert (first.status_code, second.status_code) == (200, 409)
    assert inventories(rp)["VCPU"].total == 4


@pytest.mark.parametrize("rc", ["MEMORY_MB", "HOUSE"])
def test_update_one_without_inventory_400(api, rc):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp)
    response = api.put(url(rp, rc), json={"resource_provider_generation": 0, "total": 2048})
    assert response.status_code == 400
    assert "No inventory record with resource class" in detail(response)
    assert generation(rp) == 0


def test_update_one_reserved_above_total_400(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=2048)
    response = api.put(url(rp, "VCPU"), json={"resource_provider_generation": 0, "total": 2048,
                                              "reserved": 4096})
    assert response.status_code == 400
    assert f"Unable to update inventory for resource provider {rp.uuid}" in detail(response)


@pytest.mark.parametrize("mv, status", [("1.25", 400), ("1.26", 200)])
def test_update_one_reserved_equal_total(api, mv, status):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=253)
    response = api.put(url(rp, "VCPU"), mv=mv, json={"resource_provider_generation": 0,
                                                     "total": 512, "reserved": 512})
    assert response.status_code == status
    if status == 400:
        assert "greater than or equal to total" in detail(response)


@pytest.mark.parametrize("body", [
    {"house": "red", "car": "blue"},
    {"total": 10},
    {"resource_provider_generation": 0},
    {"resource_provider_generation": 0, "total": 10, "resource_class": "VCPU"},
])
def test_update_one_schema_errors(api, body):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp)
    response = api.put(url(rp, "VCPU"), json=body)
    assert response.status_code == 400
    assert "JSON does not validate" in detail(response)


def test_update_one_shrinking_below_usage_is_allowed(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=8)
    AllocationFactory(resource_provider=rp, used=6)
    response = api.put(url(rp, "VCPU"), json={"resource_provider_generation": 0, "total": 4})
    assert response.status_code == 200


# --- DELETE /inventories/{rc} --------------------------------------------------


def test_delete_one(api):
    rp = ResourceProviderFactory(generation=2)
    InventoryFactory(resource_provider=rp)
    InventoryFactory(resource_provider=rp, resource_class=resource_class("DISK_GB"))
    response = api.delete(url(rp, "VCPU"))
    assert response.status_code == 204
    assert response.content == b""
    assert "content-type" not in response
    assert set(inventories(rp)) == {"DISK_GB"}
    assert generation(rp) == 3


def test_delete_one_missing_404(api):
    rp = ResourceProviderFactory()
    response = api.delete(url(rp, "IPV4_ADDRESS"))
    assert response.status_code == 404
    assert "No inventory of class IPV4_ADDRESS found for delete" in detail(response)
    assert generation(rp) == 0


def test_delete_one_missing_provider_404(api):
    response = api.delete(f"/resource_providers/{MISSING}/inventories/VCPU")
    assert response.status_code == 404
    assert "No resource provider with uuid" in detail(response)


def test_delete_one_in_use_409(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp)
    AllocationFactory(resource_provider=rp)
    response = api.delete(url(rp, "VCPU"), mv="1.23")
    assert response.status_code == 409
    assert code(response) == "placement.inventory.inuse"
    assert "VCPU" in inventories(rp)
    assert generation(rp) == 0


def test_delete_one_allocations_elsewhere_do_not_count(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp)
    AllocationFactory()  # VCPU used on another provider
    AllocationFactory(resource_provider=rp, resource_class=resource_class("DISK_GB"))
    assert api.delete(url(rp, "VCPU")).status_code == 204


# --- DELETE /inventories (all, 1.5+) -------------------------------------------


def test_delete_all(api):
    rp = ResourceProviderFactory(generation=8)
    InventoryFactory(resource_provider=rp)
    InventoryFactory(resource_provider=rp, resource_class=resource_class("DISK_GB"))
    response = api.delete(url(rp), mv="1.5")
    assert response.status_code == 204
    assert inventories(rp) == {}
    assert generation(rp) == 9
    # Nothing left: still 204, and the generation still moves.
    assert api.delete(url(rp), mv="1.5").status_code == 204
    assert generation(rp) == 10


def test_delete_all_before_1_5_is_405(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp)
    response = api.delete(url(rp), mv="1.4")
    assert response.status_code == 405
    assert "PUT" in response["allow"]
    assert "VCPU" in inventories(rp)


def test_delete_all_missing_provider_404(api):
    response = api.delete(f"/resource_providers/{MISSING}/inventories", mv="1.5")
    assert response.status_code == 404


def test_delete_all_in_use_409(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp)
    InventoryFactory(resource_provider=rp, resource_class=resource_class("DISK_GB"))
    AllocationFactory(resource_provider=rp, resource_class=resource_class("DISK_GB"))
    response = api.delete(url(rp), mv="1.23")
    assert response.status_code == 409
    assert code(response) == "placement.inventory.inuse"
    assert set(inventories(rp)) == {"VCPU", "DISK_GB"}
    assert generation(rp) == 0


# --- policy ---------------------------------------------------------------------


def test_writes_need_policy(api_factory):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp)
    user = api_factory(token="someone")
    assert user.post(url(rp), json={"resource_class": "DISK_GB", "total": 1}).status_code == 403
    assert user.put(url(rp), json={"resource_provider_generation": 0,
                                   "inventories": {}}).status_code == 403
    assert user.put(url(rp, "VCPU"), json={"resource_provider_generation": 0,
                                           "total": 1}).status_code == 403
    assert user.delete(url(rp, "VCPU")).status_code == 403
    assert user.delete(url(rp), mv="1.5").status_code == 403
    assert set(inventories(rp)) == {"VCPU"} and generation(rp) == 0


# --- odd input that JSON allows ---------------------------------------------------


@pytest.mark.parametrize("raw", [
    b'{"resource_class": "VCPU", "total": 10, "allocation_ratio": NaN}',
    b'{"resource_class": "VCPU", "total": 10, "allocation_ratio": Infinity}',
    b'{"resource_class": "VCPU", "total": 10.5}',
    b'[]',
    b'null',
])
def test_create_odd_json_400(api, raw):
    rp = ResourceProviderFactory()
    response = api.post(url(rp), data=raw, content_type="application/json")
    assert response.status_code == 400
    assert inventories(rp) == {} and generation(rp) == 0


def test_replace_nan_ratio_400(api):
    rp = ResourceProviderFactory()
    raw = (b'{"resource_provider_generation": 0, '
           b'"inventories": {"VCPU": {"total": 1, "allocation_ratio": NaN}}}')
    response = api.put(url(rp), data=raw, content_type="application/json")
    assert response.status_code == 400
    assert inventories(rp) == {}
