"""POST/GET/PUT/DELETE /resource_providers[/{uuid}] across microversions."""
import uuid

import pytest

from providers.models import Aggregate, Inventory, ProviderAggregate, ProviderTrait, ResourceProvider
from tests.factories import (
    AllocationFactory,
    InventoryFactory,
    ResourceProviderFactory,
    trait,
)


def _new_uuid():
    return str(uuid.uuid4())


def _error(response):
    return response.json()["errors"][0]


# -- create -------------------------------------------------------------------


def test_create_before_1_20_is_201_with_location_and_no_body(api):
    rp_uuid = _new_uuid()
    response = api.post("/resource_providers", mv="1.19", json={"name": "cn1", "uuid": rp_uuid})
    assert response.status_code == 201
    assert response.content == b""
    assert response["Location"] == f"http://testserver/resource_providers/{rp_uuid}"
    provider = ResourceProvider.objects.get(uuid=rp_uuid)
    assert provider.root_id == provider.pk
    assert provider.parent_id is None
    assert provider.generation == 0


def test_create_from_1_20_returns_the_provider(api):
    rp_uuid = _new_uuid()
    response = api.post("/resource_providers", mv="1.20", json={"name": "cn1", "uuid": rp_uuid})
    assert response.status_code == 200
    assert response["Location"].endswith(f"/resource_providers/{rp_uuid}")
    body = response.json()
    assert body["uuid"] == rp_uuid
    assert body["name"] == "cn1"
    assert body["generation"] == 0
    assert body["parent_provider_uuid"] is None
    assert body["root_provider_uuid"] == rp_uuid
    assert {link["rel"] for link in body["links"]} == {
        "self", "inventories", "usages", "aggregates", "traits", "allocations"}


def test_create_without_uuid_generates_one(api):
    response = api.post("/resource_providers", mv="1.20", json={"name": "anon"})
    assert response.status_code == 200
    generated = response.json()["uuid"]
    assert str(uuid.UUID(generated)) == generated
    assert ResourceProvider.objects.filter(uuid=generated, name="anon").exists()


def test_create_stores_dashless_uuid_in_canonical_form(api):
    raw = uuid.uuid4()
    response = api.post("/resource_providers", mv="1.20", json={"name": "x", "uuid": raw.hex})
    assert response.status_code == 200
    assert response.json()["uuid"] == str(raw)
    again = api.post("/resource_providers", mv="1.20", json={"name": "y", "uuid": raw.hex})
    assert again.status_code == 409
    assert f"Conflicting resource provider uuid: {raw} already exists" in _error(again)["detail"]


def test_create_duplicate_name_is_409_duplicate_name(api):
    ResourceProviderFactory(name="taken")
    response = api.post("/resource_providers", mv="1.23", json={"name": "taken"})
    assert response.status_code == 409
    error = _error(response)
    assert error["code"] == "placement.duplicate_name"
    assert "Conflicting resource provider name: taken already exists" in error["detail"]
    assert ResourceProvider.objects.filter(name="taken").count() == 1


def test_create_duplicate_before_1_23_has_no_code(api):
    ResourceProviderFactory(name="taken")
    response = api.post("/resource_providers", mv="1.22", json={"name": "taken"})
    assert response.status_code == 409
    assert "code" not in _error(response)


@pytest.mark.parametrize(
    "body, fragment",
    [
        ({}, "'name' is a required property"),
        ({"name": "x" * 201}, "Failed validating 'maxLength'"),
        ({"name": "ok", "uuid": "not a uuid"}, "Failed validating 'format'"),
        ({"name": "ok", "colour": "blue"}, "Additional properties are not allowed"),
    ],
)
def test_create_bad_body_is_400(api, body, fragment):
    response = api.post("/resource_providers", mv="1.20", json=body)
    assert response.status_code == 400
    assert fragment in _error(response)["detail"]
    assert not ResourceProvider.objects.exists()


def test_create_malformed_json_and_wrong_media_type(api):
    response = api.post("/resource_providers", mv="1.20", data=b'{"foo": }',
                        content_type="application/json")
    assert response.status_code == 400
    assert "Malformed JSON" in _error(response)["detail"]
    response = api.post("/resource_providers", mv="1.20", data=b"x", content_type="text/plain")
    assert response.status_code == 415


def test_create_child_before_1_14_rejects_parent(api):
    parent = ResourceProviderFactory()
    response = api.post("/resource_providers", mv="1.13",
                        json={"name": "child", "parent_provider_uuid": parent.uuid})
    assert response.status_code == 400
    assert "JSON does not validate" in _error(response)["detail"]


def test_create_child_takes_root_of_parent(api):
    root = ResourceProviderFactory()
    middle = ResourceProviderFactory(parent=root)
    response = api.post("/resource_providers", mv="1.20",
                        json={"name": "leaf", "parent_provider_uuid": middle.uuid})
    assert response.status_code == 200
    body = response.json()
    assert body["parent_provider_uuid"] == middle.uuid
    assert body["root_provider_uuid"] == root.uuid
    leaf = ResourceProvider.objects.get(name="leaf")
    assert leaf.root_id == root.pk and leaf.parent_id == middle.pk


def test_create_with_unknown_parent_is_400(api):
    response = api.post("/resource_providers", mv="1.20",
                        json={"name": "orphan", "parent_provider_uuid": _new_uuid()})
    assert response.status_code == 400
    assert "parent provider UUID does not exist" in _error(response)["detail"]
    assert not ResourceProvider.objects.exists()


def test_create_self_parent_is_400(api):
    rp_uuid = _new_uuid()
    response = api.post("/resource_providers", mv="1.20",
                        json={"name": "child", "uuid": rp_uuid, "parent_provider_uuid": rp_uuid})
    assert response.status_code == 400
    detail = _error(response)["detail"]
    assert "parent provider UUID cannot be same as UUID" in detail
    assert f'Unable to create resource provider "child", {rp_uuid}:' in detail


def test_create_needs_admin(api):
    response = api.post("/resource_providers", mv="1.20", json={"name": "x"}, token="user")
    assert response.status_code == 403
    assert not ResourceProvider.objects.exists()


# -- show ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "mv, rels",
    [
        ("1.0", {"self", "inventories", "usages"}),
        ("1.1", {"self", "inventories", "usages", "aggregates"}),
        ("1.5", {"self", "inventories", "usages", "aggregates"}),
        ("1.6", {"self", "inventories", "usages", "aggregates", "traits"}),
        ("1.10", {"self", "inventories", "usages", "aggregates", "traits"}),
        ("1.11", {"self", "inventories", "usages", "aggregates", "traits", "allocations"}),
        ("1.39", {"self", "inventories", "usages", "aggregates", "traits", "allocations"}),
    ],
)
def test_show_links_by_microversion(api, mv, rels):
    provider = ResourceProviderFactory()
    response = api.get(f"/resource_providers/{provider.uuid}", mv=mv)
    assert response.status_code == 200
    links = {link["rel"]: link["href"] for link in response.json()["links"]}
    assert set(links) == rels
    assert links["self"] == f"/resource_providers/{provider.uuid}"
    assert links["inventories"] == f"/resource_providers/{provider.uuid}/inventories"


def test_show_tree_fields_only_from_1_14(api):
    root = ResourceProviderFactory()
    child = ResourceProviderFactory(parent=root)
    old = api.get(f"/resource_providers/{child.uuid}", mv="1.13").json()
    assert set(old) == {"uuid", "name", "generation", "links"}
    new = api.get(f"/resource_providers/{child.uuid}", mv="1.14").json()
    assert new["parent_provider_uuid"] == root.uuid
    assert new["root_provider_uuid"] == root.uuid


@pytest.mark.parametrize("path", ["d67370b5-4dc0-470d-a4fa-85e8e89abc6c", "random_sauce"])
def test_show_unknown_is_404(api, path):
    response = api.get(f"/resource_providers/{path}", mv="1.20")
    assert response.status_code == 404
    assert f"No resource provider with uuid {path} found" in _error(response)["detail"]


def test_show_cache_headers_from_1_15(api):
    provider = ResourceProviderFactory()
    assert "cache-control" not in api.get(f"/resource_providers/{provider.uuid}", mv="1.14")
    response = api.get(f"/resource_providers/{provider.uuid}", mv="1.15")
    assert response["cache-control"] == "no-cache"
    assert response["last-modified"].endswith("GMT")


# -- update -------------------------------------------------------------------


def test_update_name(api):
    provider = ResourceProviderFactory(name="old")
    response = api.put(f"/resource_providers/{provider.uuid}", mv="1.20", json={"name": "new"})
    assert response.status_code == 200
    assert response.json()["name"] == "new"
    assert "Location" not in response
    provider.refresh_from_db()
    assert provider.name == "new"
    assert provider.generation == 0


def test_update_to_taken_name_is_409(api):
    ResourceProviderFactory(name="taken")
    provider = ResourceProviderFactory(name="mine")
    response = api.put(f"/resource_providers/{provider.uuid}", mv="1.23", json={"name": "taken"})
    assert response.status_code == 409
    assert _error(response)["code"] == "placement.duplicate_name"
    provider.refresh_from_db()
    assert provider.name == "mine"


@pytest.mark.parametrize(
    "mv, body, fragment",
    [
        ("1.20", {"badfield": "x"}, "JSON does not validate"),
        ("1.20", {"name": "n", "uuid": "7d4275fc-8b40-4995-85e2-74fcec2cb3b6"},
         "Additional properties are not allowed"),
        ("1.20", {"name": "x" * 201}, "Failed validating 'maxLength'"),
        ("1.13", {"name": "n", "parent_provider_uuid": "7d4275fc-8b40-4995-85e2-74fcec2cb3b6"},
         "JSON does not validate"),
        ("1.20", {"name": "n", "root_provider_uuid": "7d4275fc-8b40-4995-85e2-74fcec2cb3b6"},
         "JSON does not validate"),
    ],
)
def test_update_bad_body_is_400(api, mv, body, fragment):
    provider = ResourceProviderFactory(name="keep")
    response = api.put(f"/resource_providers/{provider.uuid}", mv=mv, json=body)
    assert response.status_code == 400
    assert fragment in _error(response)["detail"]
    provider.refresh_from_db()
    assert provider.name == "keep"


def test_update_unknown_provider(api):
    response = api.put(f"/resource_providers/{_new_uuid()}", mv="1.20", json={"name": "x"})
    assert response.status_code == 404
    # No media type at all: 415 comes first.
    response = api.put(f"/resource_providers/{_new_uuid()}", mv="1.20")
    assert response.status_code == 415
    assert "The media type None is not supported" in _error(response)["detail"]


def test_set_parent_on_a_root_before_1_37(api):
    parent = ResourceProviderFactory()
    provider = ResourceProviderFactory()
    response = api.put(f"/resource_providers/{provider.uuid}", mv="1.14",
                       json={"name": provider.name, "parent_provider_uuid": parent.uuid})
    assert response.status_code == 200
    body = response.json()
    assert body["parent_provider_uuid"] == parent.uuid
    assert body["root_provider_uuid"] == parent.uuid


def test_set_parent_to_unknown_provider_is_400(api):
    provider = ResourceProviderFactory()
    response = api.put(f"/resource_providers/{provider.uuid}", mv="1.20",
                       json={"name": "x", "parent_provider_uuid": _new_uuid()})
    assert response.status_code == 400
    assert "parent provider UUID does not exist" in _error(response)["detail"]


def test_reparent_and_unparent_refused_before_1_37(api):
    parent = ResourceProviderFactory()
    other = ResourceProviderFactory()
    child = ResourceProviderFactory(parent=parent)
    url = f"/resource_providers/{child.uuid}"
    response = api.put(url, mv="1.36", json={"name": "c", "parent_provider_uuid": other.uuid})
    assert response.status_code == 400
    assert "re-parenting a provider is not currently allowed" in _error(response)["detail"]
    response = api.put(url, mv="1.36", json={"name": "c", "parent_provider_uuid": None})
    assert response.status_code == 400
    assert "un-parenting a provider is not currently allowed" in _error(response)["detail"]
    # Naming the same parent again is not a change.
    response = api.put(url, mv="1.36", json={"name": "c", "parent_provider_uuid": parent.uuid})
    assert response.status_code == 200
    child.refresh_from_db()
    assert child.parent_id == parent.pk and child.name == "c"


def test_reparent_moves_the_whole_subtree_from_1_37(api):
    old_root = ResourceProviderFactory()
    child = ResourceProviderFactory(parent=old_root)
    grandchild = ResourceProviderFactory(parent=child)
    new_root = ResourceProviderFactory()
    response = api.put(f"/resource_providers/{child.uuid}", mv="1.37",
                       json={"name": child.name, "parent_provider_uuid": new_root.uuid})
    assert response.status_code == 200
    assert response.json()["root_provider_uuid"] == new_root.uuid
    grandchild.refresh_from_db()
    child.refresh_from_db()
    assert child.parent_id == new_root.pk
    assert child.root_id == new_root.pk
    assert grandchild.root_id == new_root.pk


def test_unparent_makes_a_new_root_of_the_subtree_from_1_37(api):
    root = ResourceProviderFactory()
    child = ResourceProviderFactory(parent=root)
    grandchild = ResourceProviderFactory(parent=child)
    response = api.put(f"/resource_providers/{child.uuid}", mv="1.37",
                       json={"name": child.name, "parent_provider_uuid": None})
    assert response.status_code == 200
    body = response.json()
    assert body["parent_provider_uuid"] is None
    assert body["root_provider_uuid"] == child.uuid
    grandchild.refresh_from_db()
    assert grandchild.root_id == child.pk
    root.refresh_from_db()
    assert root.root_id == root.pk


@pytest.mark.parametrize("mv", ["1.14", "1.37"])
def test_loops_are_refused(api, mv):
    root = ResourceProviderFactory()
    child = ResourceProviderFactory(parent=root)
    grandchild = ResourceProviderFactory(parent=child)
    for target in (root, child, grandchild):
        response = api.put(f"/resource_providers/{root.uuid}", mv=mv,
                           json={"name": root.name, "parent_provider_uuid": target.uuid})
        assert response.status_code == 400
        assert "creating loop in the provider tree is not allowed." in _error(response)["detail"]
    root.refresh_from_db()
    assert root.parent_id is None and root.root_id == root.pk


# -- delete -------------------------------------------------------------------


def test_delete_removes_provider_and_its_links(api):
    provider = ResourceProviderFactory()
    InventoryFactory(resource_provider=provider)
    aggregate = Aggregate.objects.create(uuid=_new_uuid())
    ProviderAggregate.objects.create(resource_provider=provider, aggregate=aggregate)
    ProviderTrait.objects.create(resource_provider=provider, trait=trait("HW_CPU_X86_AVX"))
    response = api.delete(f"/resource_providers/{provider.uuid}")
    assert response.status_code == 204
    assert response.content == b""
    assert not ResourceProvider.objects.filter(pk=provider.pk).exists()
    assert not Inventory.objects.exists()
    assert not ProviderAggregate.objects.exists()
    assert not ProviderTrait.objects.exists()
    assert Aggregate.objects.filter(pk=aggregate.pk).exists()


def test_delete_unknown_is_404(api):
    missing = _new_uuid()
    response = api.delete(f"/resource_providers/{missing}")
    assert response.status_code == 404
    assert f"No resource provider with uuid {missing} found for delete" in _error(response)["detail"]


def test_delete_with_allocations_is_409(api):
    allocation = AllocationFactory()
    provider = allocation.resource_provider
    response = api.delete(f"/resource_providers/{provider.uuid}", mv="1.23")
    assert response.status_code == 409
    assert _error(response)["code"] == "placement.resource_provider.inuse"
    assert ResourceProvider.objects.filter(pk=provider.pk).exists()


def test_delete_parent_is_409(api):
    parent = ResourceProviderFactory()
    ResourceProviderFactory(parent=parent)
    response = api.delete(f"/resource_providers/{parent.uuid}", mv="1.23")
    assert response.status_code == 409
    error = _error(response)
    assert error["code"] == "placement.resource_provider.cannot_delete_parent"
    assert (f"Unable to delete parent resource provider {parent.uuid}: It has child "
            "resource providers.") in error["detail"]


def test_delete_child_then_parent(api):
    parent = ResourceProviderFactory()
    child = ResourceProviderFactory(parent=parent)
    assert api.delete(f"/resource_providers/{child.uuid}").status_code == 204
    assert api.delete(f"/resource_providers/{parent.uuid}").status_code == 204
    assert not ResourceProvider.objects.exists()


def test_collection_rejects_other_methods(api):
    response = api.delete("/resource_providers")
    assert response.status_code == 405
    assert set(response["Allow"].replace(" ", "").split(",")) == {"GET", "POST"}
