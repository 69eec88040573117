"""POST /reshaper: the nova-style reshape, and every way it can be refused.

Setup uses the factories (the ORM), checks read the database, so these
tests depend only on the reshaper itself.
"""
import io
import uuid

import pytest
from django.core.management import call_command

from allocations.models import Allocation, Consumer, ConsumerType, Project, User
from providers import locking
from providers.models import Inventory, ResourceProvider
from tests.reshaper.world import World, holdings, inventory_of
from tests.support.api import PlacementClient
from tests.factories import (
    AllocationFactory,
    ConsumerFactory,
    InventoryFactory,
    ResourceProviderFactory,
    resource_class,
)

MV = "1.30"


def _uuid():
    return str(uuid.uuid4())


def dump() -> str:
    """Every row of every placement table, as JSON (timestamps included)."""
    out = io.StringIO()
    call_command(
        "dumpdata", "resource_classes", "providers", "allocations",
        format="json", indent=None, stdout=out,
    )
    return out.getvalue()


def generation(model, obj):
    return model.objects.get(pk=obj.pk).generation


@pytest.fixture
def api(db):
    """Nova's way in: a service-role token (the reshaper is service-only by default)."""
    return PlacementClient(token="nova", roles="service")


@pytest.fixture
def world(db):
    return World()


def _detail(response):
    return response.json()["errors"][0]["detail"]


def _code(response):
    return response.json()["errors"][0].get("code")


# --- the successful reshape ------------------------------------------------


def test_nova_style_reshape_moves_inventory_and_allocations(api, world):
    response = api.post("/reshaper", mv=MV, json=world.body())
    assert response.status_code == 204, response.content
    assert response.content == b""

    assert inventory_of(world.root) == {"VCPU": 8, "MEMORY_MB": 4096}
    assert inventory_of(world.gpu1) == {"VGPU": 2}
    assert inventory_of(world.gpu2) == {"VGPU": 2}
    assert holdings(world.c1.uuid) == {
        world.root.uuid: {"VCPU": 2, "MEMORY_MB": 1024},
        world.gpu1.uuid: {"VGPU": 1},
    }
    assert holdings(world.c2.uuid) == {world.root.uuid: {"VCPU": 1}, world.gpu2.uuid: {"VGPU": 2}}
    # Providers of ``inventories`` gain 2, those receiving allocations 1 more
    # (upstream's counting, checked by the conformance tests).
    assert generation(ResourceProvider, world.root) == 5 + 3
    assert generation(ResourceProvider, world.gpu1) == 0 + 3
    assert generation(ResourceProvider, world.gpu2) == 0 + 3
    assert generation(Consumer, world.c1) == 2
    assert generation(Consumer, world.c2) == 2


def test_a_reshape_locks_its_providers_once(api, world, monkeypatch):
    """One ordered pass over every provider involved; the allocation write
    inside the reshape uses those locks rather than taking them again."""
    passes = []
    real = locking._locked

    def spy(where, params):
        passes.append(sorted(params))
        return real(where, params)

    monkeypatch.setattr(locking, "_locked", spy)
    response = api.post("/reshaper", mv=MV, json=world.body())
    assert response.status_code == 204, response.content
    assert passes == [sorted([world.root.pk, world.gpu1.pk, world.gpu2.pk])]
    assert generation(ResourceProvider, world.root) == 5 + 3


def test_reshape_at_1_38_sets_consumer_type(api, world):
    body = world.body(consumer_type="INSTANCE")
    response = api.post("/reshaper", mv="1.38", json=body)
    assert response.status_code == 204, response.content
    types = set(Consumer.objects.filter(uuid__in=[world.c1.uuid, world.c2.uuid])
                .values_list("consumer_type__name", flat=True))
    assert types == {"INSTANCE"}


def test_reshape_before_1_38_keeps_consumer_type(api, world):
    migration = ConsumerType.objects.create(name="MIGRATION")
    Consumer.objects.filter(pk=world.c1.pk).update(consumer_type=migration)
    response = api.post("/reshaper", mv="1.37", json=world.body())
    assert response.status_code == 204, response.content
    assert Consumer.objects.get(pk=world.c1.pk).consumer_type_id == migration.pk
    assert Consumer.objects.get(pk=world.c2.pk).consumer_type_id is None


def test_mappings_accepted_from_1_34(api, world):
    body = world.body(mappings={"": [world.root.uuid]})
    response = api.post("/reshaper", mv="1.34", json=body)
    assert response.status_code == 204, response.content


def test_new_consumer_created_and_emptied_consumer_deleted(api, world):
    new_uuid, project, user = _uuid(), _uuid(), _uuid()
    body = world.body()
    body["allocations"][world.c2.uuid]["allocations"] = {}
    body["allocations"][new_uuid] = {
        "allocations": {world.gpu2.uuid: {"resources": {"VGPU": 2}},
                        world.root.uuid: {"resources": {"VCPU": 1}}},
        "project_id": project,
        "user_id": user,
        "consumer_generation": None,
    }
    response = api.post("/reshaper", mv=MV, json=body)
    assert response.status_code == 204, response.content
    assert not Consumer.objects.filter(uuid=world.c2.uuid).exists()
    created = Consumer.objects.get(uuid=new_uuid)
    assert created.generation == 1
    assert (created.project.external_id, created.user.external_id) == (project, user)
    assert created.consumer_type is None
    assert holdings(new_uuid) == {world.gpu2.uuid: {"VGPU": 2}, world.root.uuid: {"VCPU": 1}}


def test_inventory_may_shrink_below_usage_of_untouched_consumers(api, world):
    """Only the final state of what the request allocates is checked."""
    body = {
        "inventories": {
            world.root.uuid: {
                "resource_provider_generation": 5,
                "inventories": {"VCPU": {"total": 1}, "MEMORY_MB": {"total": 4096},
                                "VGPU": {"total": 4}},
            },
        },
        "allocations": {},
    }
    response = api.post("/reshaper", mv=MV, json=body)
    assert response.status_code == 204, response.content
    assert inventory_of(world.root)["VCPU"] == 1
    assert generation(ResourceProvider, world.root) == 7


def test_inventory_only_reshape_without_allocations(api, db):
    rp = ResourceProviderFactory()
    body = {
        "inventories": {rp.uuid: {"resource_provider_generation": 0,
                                  "inventories": {"DISK_GB": {"total": 100, "reserved": 100}}}},
        "allocations": {},
    }
    response = api.post("/reshaper", mv=MV, json=body)
    assert response.status_code == 204, response.content
    assert inventory_of(rp) == {"DISK_GB": 100}


def test_same_generation_twice_second_writer_gets_409(api, world):
    body = world.body()
    assert api.post("/reshaper", mv=MV, json=body).status_code == 204
    before = dump()
    response = api.post("/reshaper", mv=MV, json=body)
    assert response.status_code == 409
    assert _code(response) == "placement.concurrent_update"
    assert dump() == before


# --- refusals: nothing changes ----------------------------------------------


def _refused(api, world, body, status, *, mv=MV, code=None, contains=()):
    before = dump()
    response = api.post("/reshaper", mv=mv, json=body)
    assert response.status_code == status, response.content
    for text in contains:
        assert text in _detail(response)
    if code is not None:
        assert _code(response) == code
    assert dump() == before
    return response


def test_stale_provider_generation(api, world):
    body = world.body()
    body["inventories"][world.gpu1.uuid]["resource_provider_generation"] = 3
    _refused(api, world, body, 409, code="placement.concurrent_update",
             contains=["resource provider generation conflict", "actual: 0, given: 3"])


def test_stale_consumer_generation(api, world):
    body = world.body()
    body["allocations"][world.c2.uuid]["consumer_generation"] = 7
    _refused(api, world, body, 409, code="placement.concurrent_update",
             contains=["consumer generation conflict"])


def test_existing_consumer_given_null_generation(api, world):
    body = world.body()
    body["allocations"][world.c1.uuid]["consumer_generation"] = None
    _refused(api, world, body, 409, code="placement.concurrent_update",
             contains=["consumer generation conflict"])


def test_new_consumer_given_a_generation(api, world):
    body = world.body()
    body["allocations"][_uuid()] = {
        "allocations": {world.gpu1.uuid: {"resources": {"VGPU": 1}}},
        "project_id": _uuid(), "user_id": _uuid(), "consumer_generation": 3,
    }
    _refused(api, world, body, 409, code="placement.concurrent_update",
             contains=["consumer generation conflict", "expected null but got 3"])


def test_unknown_provider_in_inventories(api, world):
    body = world.body()
    body["inventories"][_uuid()] = {"resource_provider_generation": 0,
                                    "inventories": {"VCPU": {"total": 1}}}
    _refused(api, world, body, 400, code="placement.resource_provider.not_found")


def test_unknown_provider_in_allocations(api, world):
    body = world.body()
    body["allocations"][world.c1.uuid]["allocations"][_uuid()] = {"resources": {"VCPU": 1}}
    _refused(api, world, body, 400, contains=["that does not exist"])


def test_unknown_resource_class_in_inventories(api, world):
    body = world.body()
    body["inventories"][world.gpu1.uuid]["inventories"]["CUSTOM_NOPE"] = {"total": 1}
    _refused(api, world, body, 400, contains=["No such resource class CUSTOM_NOPE"])


def test_unknown_resource_class_in_allocations(api, world):
    body = world.body()
    body["allocations"][world.c1.uuid]["allocations"][world.gpu1.uuid]["resources"] = {
        "CUSTOM_NOPE": 1}
    _refused(api, world, body, 400, contains=["No such resource class CUSTOM_NOPE"])


def test_bad_inventory_record(api, world):
    body = world.body()
    # Upstream's reshaper stores this (a negative capacity); a deliberate
    # difference (docs/conformance.md), answered as PUT .../inventories answers it.
    body["inventories"][world.gpu1.uuid]["inventories"]["VGPU"] = {
        "total": 2, "reserved": 3}
    _refused(api, world, body, 400, contains=["The reserved value is greater than total."])


def test_final_capacity_exceeded(api, world):
    body = world.body()
    body["inventories"][world.gpu2.uuid]["inventories"]["VGPU"]["total"] = 1
    body["inventories"][world.gpu2.uuid]["inventories"]["VGPU"]["max_unit"] = 1
    body["allocations"][world.c2.uuid]["allocations"][world.gpu2.uuid]["resources"]["VGPU"] = 1
    body["allocations"][world.c1.uuid]["allocations"][world.gpu2.uuid] = {
        "resources": {"VGPU": 1}}
    _refused(api, world, body, 409, contains=["Unable to allocate inventory",
                                              "exceed the capacity"])


def test_final_max_unit_violated(api, world):
    body = world.body()
    body["inventories"][world.gpu2.uuid]["inventories"]["VGPU"]["max_unit"] = 1
    _refused(api, world, body, 409, contains=["Unable to allocate inventory",
                                              "violate inventory constraints"])


def test_final_step_size_violated(api, world):
    body = world.body()
    body["inventories"][world.root.uuid]["inventories"]["MEMORY_MB"]["step_size"] = 1000
    _refused(api, world, body, 409, contains=["Unable to allocate inventory"])


def test_allocation_on_class_the_final_inventory_lacks(api, world):
    body = world.body()
    # The VGPU allocations stay on the root, whose VGPU inventory goes.
    body["allocations"][world.c1.uuid]["allocations"] = {
        world.root.uuid: {"resources": {"VCPU": 2, "MEMORY_MB": 1024, "VGPU": 1}}}
    # As upstream: the allocation fits the interim inventory, then the
    # final one finds it in use.
    _refused(api, world, body, 409, code="placement.inventory.inuse",
             contains=["update conflict: Inventory for 'VGPU'", "in use"])


def test_removed_inventory_still_used_by_unnamed_consumer(api, world):
    body = world.body()
    del body["allocations"][world.c2.uuid]  # c2 keeps its VGPU on the root
    _refused(api, world, body, 409, code="placement.inventory.inuse", contains=["VGPU"])


def test_failure_after_creating_project_user_and_consumer_rolls_them_back(api, world):
    body = world.body(consumer_type="CUSTOM_NEW_TYPE")
    body["allocations"][_uuid()] = {
        "allocations": {world.gpu1.uuid: {"resources": {"VGPU": 2}}},  # gpu1 holds 2; c1 has 1
        "project_id": _uuid(), "user_id": _uuid(), "consumer_generation": None,
        "consumer_type": "CUSTOM_NEW_TYPE",
    }
    projects, users = Project.objects.count(), User.objects.count()
    _refused(api, world, body, 409, mv="1.38", contains=["Unable to allocate inventory"])
    assert (Project.objects.count(), User.objects.count()) == (projects, users)
    assert not ConsumerType.objects.filter(name="CUSTOM_NEW_TYPE").exists()


# --- the HTTP edge -----------------------------------------------------------


def test_absent_before_1_30(api, world):
    _refused(api, world, world.body(), 404, mv="1.29")


def test_get_is_405(api, db):
    response = api.get("/reshaper", mv=MV)
    assert response.status_code == 405
    assert response["Allow"] == "POST"


def test_non_admin_forbidden(api_factory, world):
    before = dump()
    response = api_factory(token="user").post("/reshaper", mv=MV, json=world.body())
    assert response.status_code == 403
    assert dump() == before


def test_admin_without_service_role_forbidden_by_default(api_factory, world):
    before = dump()
    response = api_factory(token="admin").post("/reshaper", mv=MV, json=world.body())
    assert response.status_code == 403
    assert "placement:reshaper:reshape" in response.json()["errors"][0]["detail"]
    assert dump() == before


def test_admin_may_reshape_with_legacy_defaults(api_factory, world, settings):
    settings.PLACEMENT_ENFORCE_NEW_DEFAULTS = False
    response = api_factory(token="admin").post("/reshaper", mv=MV, json=world.body())
    assert response.status_code == 204, response.content


@pytest.mark.parametrize(
    "mutate, mv, message",
    [
        (lambda b: b.clear() or b.update(cows="moo"), MV, "JSON does not validate"),
        (lambda b: b.pop("allocations"), MV, "'allocations' is a required property"),
        (lambda b: b.pop("inventories"), MV, "'inventories' is a required property"),
        (lambda b: next(iter(b["inventories"].values()))["inventories"]["VCPU"].update(
            bad_field="moo"), MV, "'bad_field' was unexpected"),
        (lambda b: next(iter(b["allocations"].values())).update(bad_field="moo"), MV,
         "'bad_field' was unexpected"),
        (lambda b: next(iter(b["allocations"].values())).update(mappings={"": ["x"]}), "1.33",
         "Additional properties are not allowed"),
        (lambda b: next(iter(b["allocations"].values())).pop("consumer_generation"), MV,
         "'consumer_generation' is a required property"),
        (lambda b: None, "1.38", "'consumer_type' is a required property"),
        (lambda b: [c.update(consumer_type="instance") for c in b["allocations"].values()],
         "1.38", "does not match"),
        (lambda b: next(iter(b["inventories"].values())).update(
            resource_provider_generation="5"), MV, "is not of type 'integer'"),
        (lambda b: b["inventories"].update({"not-a-uuid": {}}), MV, "JSON does not validate"),
        (lambda b: next(iter(b["allocations"].values()))["allocations"].update(
            {next(iter(b["inventories"])): {"resources": {"VCPU": 0}}}), MV,
         "JSON does not validate"),
    ],
)
def test_schema_errors(api, world, mutate, mv, message):
    body = world.body()
    mutate(body)
    response = _refused(api, world, body, 400, mv=mv)
    assert message in _detail(response)


def test_not_json_is_415_or_400(api, world):
    before = dump()
    response = api.post("/reshaper", mv=MV, data=b"{", content_type="application/json")
    assert response.status_code == 400
    response = api.post("/reshaper", mv=MV, data=b"x", content_type="text/plain")
    assert response.status_code == 415
    assert dump() == before
