"""HTTP behaviour of /resource_classes and /resource_classes/{name}."""
import os_resource_classes
import pytest

from resource_classes.models import ResourceClass
from tests.factories import AllocationFactory, InventoryFactory, ResourceClassFactory

pytestmark = pytest.mark.django_db

STANDARD_COUNT = len(os_resource_classes.STANDARDS)


def detail(response):
    return response.json()["errors"][0]["detail"]


# --- microversion masking -------------------------------------------------


@pytest.mark.parametrize(
    "method, path",
    [
        ("GET", "/resource_classes"),
        ("POST", "/resource_classes"),
        ("GET", "/resource_classes/VCPU"),
        ("PUT", "/resource_classes/CUSTOM_X"),
        ("DELETE", "/resource_classes/CUSTOM_X"),
    ],
)
def test_before_1_2_every_route_is_404(api, method, path):
    ResourceClassFactory(name="CUSTOM_X")
    response = api.request(method, path, mv="1.1", json={"name": "CUSTOM_Y"})
    assert response.status_code == 404
    assert response.json()["errors"][0]["title"] == "Not Found"
    assert ResourceClass.objects.filter(name="CUSTOM_X").exists()
    assert not ResourceClass.objects.filter(name="CUSTOM_Y").exists()


def test_404_wins_over_415_before_1_2(api):
    response = api.post("/resource_classes", mv="1.1", data=b"data", content_type="text/plain")
    assert response.status_code == 404


def test_unsupported_method_is_405(api):
    response = api.patch("/resource_classes", mv="1.2")
    assert response.status_code == 405
    assert set(response["allow"].split(", ")) >= {"GET", "POST"}


# --- list / show ------------------------------------------------------------


def test_list_has_standard_and_custom_classes_with_links(api):
    ResourceClassFactory(name="CUSTOM_GOLD")
    response = api.get("/resource_classes", mv="1.2")
    assert response.status_code == 200
    classes = response.json()["resource_classes"]
    assert len(classes) == STANDARD_COUNT + 1
    gold = [rc for rc in classes if rc["name"] == "CUSTOM_GOLD"][0]
    assert gold["links"] == [{"rel": "self", "href": "/resource_classes/CUSTOM_GOLD"}]
    assert {"VCPU", "MEMORY_MB", "DISK_GB"} <= {rc["name"] for rc in classes}


def test_list_query_count_is_constant(api, django_assert_max_num_queries):
    for n in range(20):
        ResourceClassFactory(name=f"CUSTOM_BULK_{n}")
    with django_assert_max_num_queries(2):
        assert api.get("/resource_classes", mv="1.2").status_code == 200


def test_list_cache_headers_only_from_1_15(api):
    old = api.get("/resource_classes", mv="1.14")
    assert "last-modified" not in old and "cache-control" not in old
    new = api.get("/resource_classes", mv="1.15")
    assert new["cache-control"] == "no-cache"
    assert new["last-modified"].endswith("GMT")


def test_list_needs_admin(api):
    response = api.get("/resource_classes", mv="1.2", token="user")
    assert response.status_code == 403
    assert response.json()["errors"][0]["title"] == "Forbidden"


def test_show(api):
    response = api.get("/resource_classes/VCPU", mv="1.2")
    assert response.status_code == 200
    assert response["content-type"].startswith("application/json")
    assert response.json() == {
        "name": "VCPU",
        "links": [{"rel": "self", "href": "/resource_classes/VCPU"}],
    }
    assert "last-modified" not in response
    assert "last-modified" in api.get("/resource_classes/VCPU", mv="1.15")


def test_show_unknown_is_404(api):
    response = api.get("/resource_classes/CUSTOM_NOPE", mv="1.2")
    assert response.status_code == 404
    assert "No such resource class CUSTOM_NOPE" in detail(response)


def test_show_needs_admin(api):
    assert api.get("/resource_classes/VCPU", mv="1.2", token="user").status_code == 403


# --- POST -------------------------------------------------------------------


def test_create(api):
    response = api.post("/resource_classes", mv="1.2", json={"name": "CUSTOM_NFV"})
    assert response.status_code == 201
    assert response["location"].endswith("/resource_classes/CUSTOM_NFV")
    assert "content-type" not in response
    assert response.content == b""
    assert ResourceClass.objects.filter(name="CUSTOM_NFV").exists()


def test_create_duplicate_is_409(api):
    ResourceClassFactory(name="CUSTOM_NFV")
    response = api.post("/resource_classes", mv="1.2", json={"name": "CUSTOM_NFV"})
    assert response.status_code == 409
    assert "Conflicting resource class already exists: CUSTOM_NFV" in detail(response)
    assert ResourceClass.objects.filter(name="CUSTOM_NFV").count() == 1


@pytest.mark.parametrize(
    "body, message",
    [
        ({"name": "FOO"}, "Failed validating 'pattern'"),
        ({"name": "IRON_NFV"}, "Failed validating 'pattern'"),
        ({"name": "VCPU"}, "Failed validating 'pattern'"),
        ({"name": "CUSTOM_Illegal&@!Name?"}, "Failed validating 'pattern'"),
        ({"name": "CUSTOM_" + "S" * 249}, "Failed validating 'maxLength'"),
        ({"name": "CUSTOM_A", "extra": 1}, "Additional properties are not allowed"),
        ({}, "'name' is a required property"),
        ({"name": 5}, "is not of type 'string'"),
        ([], "is not of type 'object'"),
    ],
)
def test_create_invalid_body_is_400(api, body, message):
    before = ResourceClass.objects.count()
    response = api.post("/resource_classes", mv="1.2", json=body)
    assert response.status_code == 400
    assert "JSON does not validate" in detail(response)
    assert message in detail(response)
    assert ResourceClass.objects.count() == before


def test_create_malformed_json_is_400(api):
    response = api.post(
        "/resource_classes", mv="1.2", data=b'{"foo": }', content_type="application/json"
    )
    assert response.status_code == 400
    assert "Malformed JSON:" in detail(response)


def test_create_wrong_content_type_is_415(api):
    response = api.post("/resource_classes", mv="1.2", data=b"data", content_type="text/plain")
    assert response.status_code == 415


def test_create_needs_admin(api):
    response = api.post("/resource_classes", mv="1.2", token="user", json={"name": "CUSTOM_A"})
    assert response.status_code == 403
    assert not ResourceClass.objects.filter(name="CUSTOM_A").exists()


def test_create_at_latest_has_error_code(api):
    ResourceClassFactory(name="CUSTOM_NFV")
    response = api.post("/resource_classes", mv="latest", json={"name": "CUSTOM_NFV"})
    assert response.json()["errors"][0]["code"] == "placement.undefined_code"


# --- PUT 1.2 - 1.6: rename ----------------------------------------------------


@pytest.mark.parametrize("mv", ["1.2", "1.6"])
def test_rename(api, mv):
    ResourceClassFactory(name="CUSTOM_OLD")
    response = api.put("/resource_classes/CUSTOM_OLD", mv=mv, json={"name": "CUSTOM_NEW"})
    assert response.status_code == 200
    assert response.json() == {
        "name": "CUSTOM_NEW",
        "links": [{"rel": "self", "href": "/resource_classes/CUSTOM_NEW"}],
    }
    assert list(ResourceClass.objects.filter(name__in=["CUSTOM_OLD", "CUSTOM_NEW"])
                .values_list("name", flat=True)) == ["CUSTOM_NEW"]


def test_rename_standard_is_400(api):
    ResourceClassFactory(name="CUSTOM_TAKEN")
    response = api.put("/resource_classes/VCPU", mv="1.6", json={"name": "CUSTOM_TAKEN"})
    assert response.status_code == 400
    assert "Cannot update standard resource class VCPU" in detail(response)
    assert ResourceClass.objects.filter(name="VCPU").exists()


def test_rename_body_is_validated_before_anything(api):
    response = api.put("/resource_classes/VCPU", mv="1.6", json={"name": "VCPU_ALTERNATE"})
    assert response.status_code == 400
    assert "JSON does not validate" in detail(response)


@pytest.mark.parametrize(
    "body, message",
    [
        ({"name": "VCPU"}, "Failed validating 'pattern'"),
        ({"name": "CUSTOM_" + "S" * 249}, "Failed validating 'maxLength'"),
        ({"name": "CUSTOM_B", "additional": "x"}, "Additional properties are not allowed"),
    ],
)
def test_rename_invalid_body_is_400(api, body, message):
    ResourceClassFactory(name="CUSTOM_A")
    response = api.put("/resource_classes/CUSTOM_A", mv="1.6", json=body)
    assert response.status_code == 400
    assert message in detail(response)
    assert ResourceClass.objects.filter(name="CUSTOM_A").exists()


def test_rename_to_taken_name_is_409(api):
    ResourceClassFactory(name="CUSTOM_A")
    ResourceClassFactory(name="CUSTOM_B")
    response = api.put("/resource_classes/CUSTOM_A", mv="1.6", json={"name": "CUSTOM_B"})
    assert response.status_code == 409
    assert "Resource class already exists" in detail(response)
    assert "CUSTOM_B" in detail(response)
    assert ResourceClass.objects.filter(name="CUSTOM_A").exists()


def test_rename_unknown_is_404(api):
    response = api.put("/resource_classes/CUSTOM_NOPE", mv="1.6", json={"name": "CUSTOM_B"})
    assert response.status_code == 404
    assert not ResourceClass.objects.filter(name="CUSTOM_B").exists()


def test_rename_bodiless_is_malformed_json(api):
    # (Django's test client drops the content-type of a truly empty body.)
    response = api.put(
        "/resource_classes/CUSTOM_COW", mv="1.6", data=b" ", content_type="application/json"
    )
    assert response.status_code == 400
    assert "Malformed JSON:" in detail(response)


def test_rename_needs_admin(api):
    ResourceClassFactory(name="CUSTOM_A")
    response = api.put("/resource_classes/CUSTOM_A", mv="1.6", token="user",
                       json={"name": "CUSTOM_B"})
    assert response.status_code == 403
    assert ResourceClass.objects.filter(name="CUSTOM_A").exists()


# --- PUT 1.7+: create or confirm ------------------------------------------------


def test_put_creates_then_confirms(api):
    first = api.put("/resource_classes/CUSTOM_COW", mv="1.7")
    assert first.status_code == 201
    assert first["location"].endswith("/resource_classes/CUSTOM_COW")
    assert "content-type" not in first
    again = api.put("/resource_classes/CUSTOM_COW", mv="1.7")
    assert again.status_code == 204
    assert again["location"].endswith("/resource_classes/CUSTOM_COW")
    assert ResourceClass.objects.filter(name="CUSTOM_COW").count() == 1


def test_put_ignores_a_body_from_1_7(api):
    response = api.put("/resource_classes/CUSTOM_COW", mv="1.7", json={"name": "CUSTOM_PIG"})
    assert response.status_code == 201
    assert not ResourceClass.objects.filter(name="CUSTOM_PIG").exists()


@pytest.mark.parametrize(
    "name, message",
    [
        ("COW", "Failed validating 'pattern'"),
        ("VCPU", "Failed validating 'pattern'"),
        ("CUSTOM_" + "S" * 249, "Failed validating 'maxLength'"),
    ],
)
def test_put_invalid_name_is_400(api, name, message):
    before = ResourceClass.objects.count()
    response = api.put(f"/resource_classes/{name}", mv="1.7")
    assert response.status_code == 400
    assert message in detail(response)
    assert ResourceClass.objects.count() == before


def test_put_needs_admin(api):
    assert api.put("/resource_classes/CUSTOM_COW", mv="1.7", token="user").status_code == 403
    assert not ResourceClass.objects.filter(name="CUSTOM_COW").exists()


def test_post_still_works_at_latest(api):
    response = api.post("/resource_classes", mv="latest", json={"name": "CUSTOM_SHEEP"})
    assert response.status_code == 201


# --- DELETE -------------------------------------------------------------------


def test_delete(api):
    ResourceClassFactory(name="CUSTOM_GONE")
    response = api.delete("/resource_classes/CUSTOM_GONE", mv="1.2")
    assert response.status_code == 204
    assert "content-type" not in response
    assert not ResourceClass.objects.filter(name="CUSTOM_GONE").exists()
    assert api.delete("/resource_classes/CUSTOM_GONE", mv="1.2").status_code == 404


def test_delete_standard_is_400(api):
    response = api.delete("/resource_classes/VCPU", mv="1.2")
    assert response.status_code == 400
    assert "Cannot delete standard resource class VCPU" in detail(response)
    assert ResourceClass.objects.filter(name="VCPU").exists()


def test_delete_in_inventory_is_409(api):
    InventoryFactory(resource_class=ResourceClassFactory(name="CUSTOM_GOLD"))
    response = api.delete("/resource_classes/CUSTOM_GOLD", mv="1.2")
    assert response.status_code == 409
    assert "Error in delete resource class" in detail(response)
    assert "Class is in use in inventory" in detail(response)
    assert ResourceClass.objects.filter(name="CUSTOM_GOLD").exists()


def test_delete_in_allocations_is_409(api):
    AllocationFactory(resource_class=ResourceClassFactory(name="CUSTOM_GOLD"))
    response = api.delete("/resource_classes/CUSTOM_GOLD", mv="1.2")
    assert response.status_code == 409
    assert "Class is in use in inventory" in detail(response)
    assert ResourceClass.objects.filter(name="CUSTOM_GOLD").exists()


def test_delete_needs_admin(api):
    ResourceClassFactory(name="CUSTOM_GONE")
    assert api.delete("/resource_classes/CUSTOM_GONE", mv="1.2", token="user").status_code == 403
    assert ResourceClass.objects.filter(name="CUSTOM_GONE").exists()
