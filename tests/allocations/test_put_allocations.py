"""PUT /allocations/{consumer_uuid} at every body format and microversion."""
import pytest

from allocations.models import Allocation, Consumer, ConsumerType, Project, User
from tests.support.claims import PROJECT, USER, body, detail, list_body, new_uuid


def _used(consumer_uuid):
    return {
        (a.resource_provider.uuid, a.resource_class.name): a.used
        for a in Allocation.objects.filter(consumer__uuid=consumer_uuid).select_related(
            "resource_provider", "resource_class")
    }


# --- list body (1.0 - 1.11) -------------------------------------------------


def test_list_body_creates_incomplete_consumer_before_1_8(api, provider, settings):
    consumer = new_uuid()
    r = api.put(f"/allocations/{consumer}", mv="1.0", json=list_body({provider.uuid: {"VCPU": 2}}))
    assert r.status_code == 204, r.content
    assert r.content == b""
    assert "cache-control" not in r and "last-modified" not in r
    c = Consumer.objects.get(uuid=consumer)
    assert c.project.external_id == settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID
    assert c.user.external_id == settings.PLACEMENT_INCOMPLETE_CONSUMER_USER_ID
    assert c.generation == 1
    assert c.consumer_type is None
    assert _used(consumer) == {(provider.uuid, "VCPU"): 2}


def test_list_body_rejects_project_before_1_8(api, provider):
    r = api.put(f"/allocations/{new_uuid()}", mv="1.7",
                json=list_body({provider.uuid: {"VCPU": 1}}, project_id=PROJECT, user_id=USER))
    assert r.status_code == 400
    assert "JSON does not validate" in detail(r)


@pytest.mark.parametrize("missing", ["project_id", "user_id"])
def test_1_8_requires_project_and_user(api, provider, missing):
    data = list_body({provider.uuid: {"VCPU": 1}}, project_id=PROJECT, user_id=USER)
    del data[missing]
    r = api.put(f"/allocations/{new_uuid()}", mv="1.8", json=data)
    assert r.status_code == 400
    assert "Failed validating 'required'" in detail(r)
    assert not Allocation.objects.exists()


@pytest.mark.parametrize("value,keyword", [("", "minLength"), ("x" * 256, "maxLength")])
def test_1_8_project_length(api, provider, value, keyword):
    data = list_body({provider.uuid: {"VCPU": 1}}, project_id=value, user_id=USER)
    r = api.put(f"/allocations/{new_uuid()}", mv="1.8", json=data)
    assert r.status_code == 400
    assert f"Failed validating '{keyword}'" in detail(r)


def test_1_8_records_project_and_user(api, provider):
    consumer = new_uuid()
    data = list_body({provider.uuid: {"VCPU": 1}}, project_id=PROJECT, user_id=USER)
    assert api.put(f"/allocations/{consumer}", mv="1.8", json=data).status_code == 204
    c = Consumer.objects.get(uuid=consumer)
    assert (c.project.external_id, c.user.external_id) == (PROJECT, USER)


@pytest.mark.parametrize(
    "allocations,message",
    [
        ([], "Failed validating 'minItems'"),
        ([{"resources": {"DISK_GB": 10}}], "Failed validating 'required'"),
        ([{"resource_provider": {"uuid": "4e05a85b-e8a6-4b3a-82c1-5f6ad3f71d55"}}], "Failed validating 'required'"),
        ([{"resource_provider": {"uuid": "x"}, "resources": {"VCPU": 1}}], "is not a 'uuid'"),
        ("PROVIDER0", "0 is less than the minimum of 1"),
        ("PROVIDER_EMPTY", "JSON does not validate"),
        ("PROVIDER_COW", "JSON does not validate"),
    ],
)
def test_list_body_schema(api, provider, allocations, message):
    if allocations == "PROVIDER0":
        allocations = [{"resource_provider": {"uuid": provider.uuid}, "resources": {"DISK_GB": 0}}]
    elif allocations == "PROVIDER_EMPTY":
        allocations = [{"resource_provider": {"uuid": provider.uuid}, "resources": {}}]
    elif allocations == "PROVIDER_COW":
        allocations = [{"resource_provider": {"uuid": provider.uuid}, "resources": {"cow": 1}}]
    r = api.put(f"/allocations/{new_uuid()}", mv="1.0", json={"allocations": allocations})
    assert r.status_code == 400
    assert message in detail(r)


def test_no_body_and_wrong_content_type(api, provider):
    consumer = new_uuid()
    r = api.put(f"/allocations/{consumer}", data=b" ", content_type="application/json")
    assert r.status_code == 400
    assert "Malformed JSON" in detail(r)
    r = api.put(f"/allocations/{consumer}", data=b"{}", content_type="text/plain")
    assert r.status_code == 415


def test_malformed_consumer_uuid(api, provider):
    r = api.put("/allocations/not-a-uuid", json=list_body({provider.uuid: {"VCPU": 1}}))
    assert r.status_code == 400
    assert "Malformed consumer_uuid" in detail(r)


def test_dashless_consumer_uuid_is_the_same_consumer(api, provider):
    consumer = new_uuid()
    api.put(f"/allocations/{consumer}", json=list_body({provider.uuid: {"VCPU": 1}}))
    r = api.put(f"/allocations/{consumer.replace('-', '')}", mv="1.28",
                json=body({provider.uuid: {"VCPU": 3}}, consumer_generation=1,
                          project_id="00000000-0000-0000-0000-000000000000",
                          user_id="00000000-0000-0000-0000-000000000000"))
    assert r.status_code == 204, r.content
    assert Consumer.objects.count() == 1
    assert _used(consumer) == {(provider.uuid, "VCPU"): 3}


# --- dict body (1.12+) --------------------------------------------------------


def test_1_12_rejects_list_body(api, provider):
    data = list_body({provider.uuid: {"VCPU": 1}}, project_id=PROJECT, user_id=USER)
    r = api.put(f"/allocations/{new_uuid()}", mv="1.12", json=data)
    assert r.status_code == 400


@pytest.mark.parametrize(
    "allocations,extra,message",
    [
        ({"nice_house_friend": {"resources": {"VCPU": 1}}}, {}, "does not match any of the regexes"),
        ("RP", {}, "does not match any of the regexes"),  # lower-case class
        ({}, {}, "JSON does not validate"),
        ("OK", {"bad_field": "moo"}, "JSON does not validate"),
    ],
)
def test_1_12_schema(api, provider, allocations, extra, message):
    if allocations == "RP":
        allocations = {provider.uuid: {"resources": {"vcpu": 1}}}
    elif allocations == "OK":
        allocations = {provider.uuid: {"resources": {"VCPU": 1}}}
    data = {"allocations": allocations, "project_id": PROJECT, "user_id": USER, **extra}
    r = api.put(f"/allocations/{new_uuid()}", mv="1.12", json=data)
    assert r.status_code == 400
    assert message in detail(r)


def test_1_12_put_back_what_get_returned(api, provider, provider2):
    consumer = new_uuid()
    data = body({provider.uuid: {"VCPU": 1, "DISK_GB": 20}, provider2.uuid: {"DISK_GB": 5}})
    assert api.put(f"/allocations/{consumer}", mv="1.12", json=data).status_code == 204
    got = api.get(f"/allocations/{consumer}", mv="1.12").json()
    assert got["allocations"][provider.uuid]["generation"] == 1
    again = {"allocations": got["allocations"], "project_id": PROJECT, "user_id": USER}
    assert api.put(f"/allocations/{consumer}", mv="1.12", json=again).status_code == 204
    assert _used(consumer) == {
        (provider.uuid, "VCPU"): 1, (provider.uuid, "DISK_GB"): 20, (provider2.uuid, "DISK_GB"): 5,
    }


def test_replace_moves_allocations_and_bumps_receiving_providers(api, provider, provider2):
    consumer = new_uuid()
    api.put(f"/allocations/{consumer}", mv="1.12", json=body({provider.uuid: {"VCPU": 2}}))
    provider.refresh_from_db()
    assert provider.generation == 1
    api.put(f"/allocations/{consumer}", mv="1.12", json=body({provider2.uuid: {"VCPU": 2}}))
    provider.refresh_from_db()
    provider2.refresh_from_db()
    # Upstream bumps providers that receive allocations (the source is unchanged).
    assert (provider.generation, provider2.generation) == (1, 1)
    assert _used(consumer) == {(provider2.uuid, "VCPU"): 2}
    assert Consumer.objects.get(uuid=consumer).generation == 2


def test_one_bump_per_provider_per_write(api, provider):
    consumer = new_uuid()
    api.put(f"/allocations/{consumer}", mv="1.12",
            json=body({provider.uuid: {"VCPU": 2, "MEMORY_MB": 10, "DISK_GB": 10}}))
    provider.refresh_from_db()
    assert provider.generation == 1


# --- errors: providers, classes, inventory, capacity ---------------------------


def test_unknown_provider_is_400(api, provider):
    missing = new_uuid()
    r = api.put(f"/allocations/{new_uuid()}", json=list_body({missing: {"VCPU": 1}}))
    assert r.status_code == 400
    assert f"Allocation for resource provider '{missing}' that does not exist" in detail(r)
    assert not Consumer.objects.exists()


def test_unknown_class_is_400(api, provider):
    consumer = new_uuid()
    r = api.put(f"/allocations/{consumer}", json=list_body({provider.uuid: {"COWS": 12}}))
    assert r.status_code == 400
    assert "Unable to allocate inventory for consumer" in detail(r)
    assert "No such resource class COWS" in detail(r)


def test_no_inventory_is_409(api, provider):
    r = api.put(f"/allocations/{new_uuid()}", mv="1.23",
                json=body({provider.uuid: {"VCPU": 1, "PCI_DEVICE": 1}}))
    assert r.status_code == 409
    assert f"Inventory for 'PCI_DEVICE' on resource provider '{provider.uuid}' invalid" in detail(r)
    assert r.json()["errors"][0]["code"] == "placement.undefined_code"
    assert not Allocation.objects.exists()


def test_capacity_exceeded_is_409_and_changes_nothing(api, provider):
    first = new_uuid()
    api.put(f"/allocations/{first}", mv="1.12", json=body({provider.uuid: {"VCPU": 4}}))
    api.put(f"/allocations/{new_uuid()}", mv="1.12", json=body({provider.uuid: {"VCPU": 3}}))
    r = api.put(f"/allocations/{new_uuid()}", mv="1.12",
                json=body({provider.uuid: {"MEMORY_MB": 10, "VCPU": 2}}))
    assert r.status_code == 409
    assert (f"Unable to create allocation for 'VCPU' on resource provider '{provider.uuid}'. "
            "The requested amount would exceed the capacity") in detail(r)
    assert Allocation.objects.count() == 2
    assert Consumer.objects.count() == 2
    provider.refresh_from_db()
    assert provider.generation == 2


def test_capacity_counts_reserved_and_ratio(api, provider):
    inv = provider.inventories.get(resource_class__name="MEMORY_MB")
    inv.reserved, inv.allocation_ratio, inv.max_unit = 48, 1.5, 5000
    inv.save()
    # (2048 - 48) * 1.5 = 3000
    ok = api.put(f"/allocations/{new_uuid()}", mv="1.12",
                 json=body({provider.uuid: {"MEMORY_MB": 3000}}))
    assert ok.status_code == 204
    r = api.put(f"/allocations/{new_uuid()}", mv="1.12",
                json=body({provider.uuid: {"MEMORY_MB": 1}}))
    assert r.status_code == 409


def test_replacing_own_allocation_frees_it_first(api, provider):
    consumer = new_uuid()
    api.put(f"/allocations/{consumer}", mv="1.12", json=body({provider.uuid: {"VCPU": 4}}))
    api.put(f"/allocations/{new_uuid()}", mv="1.12", json=body({provider.uuid: {"VCPU": 4}}))
    # Provider is full (8 of 8); the consumer re-puts its own 4: fits.
    r = api.put(f"/allocations/{consumer}", mv="1.12", json=body({provider.uuid: {"VCPU": 4}}))
    assert r.status_code == 204


@pytest.mark.parametrize(
    "resources", [{"VCPU": 5}, {"DISK_GB": 5}, {"DISK_GB": 15}],
    ids=["over-max-unit", "under-min-unit", "off-step"],
)
def test_inventory_constraints_are_409(api, provider, resources):
    r = api.put(f"/allocations/{new_uuid()}", mv="1.12", json=body({provider.uuid: resources}))
    assert r.status_code == 409
    assert "The requested amount would violate inventory constraints" in detail(r)


# --- consumer generation (1.28) ----------------------------------------------


def test_1_28_requires_consumer_generation(api, provider):
    r = api.put(f"/allocations/{new_uuid()}", mv="1.28", json=body({provider.uuid: {"VCPU": 1}}))
    assert r.status_code == 400
    assert "JSON does not validate" in detail(r)


def test_1_28_new_consumer_with_generation_is_409(api, provider):
    r = api.put(f"/allocations/{new_uuid()}", mv="1.28",
                json=body({provider.uuid: {"VCPU": 1}}, consumer_generation=5))
    assert r.status_code == 409
    assert "consumer generation conflict - expected null but got 5" in detail(r)
    assert r.json()["errors"][0]["code"] == "placement.concurrent_update"
    assert not Consumer.objects.exists()


def test_1_28_generation_flow(api, provider):
    consumer = new_uuid()
    url = f"/allocations/{consumer}"
    assert api.put(url, mv="1.28", json=body({provider.uuid: {"VCPU": 1}},
                                             consumer_generation=None)).status_code == 204
    # null for an existing consumer: conflict
    r = api.put(url, mv="1.28", json=body({provider.uuid: {"VCPU": 1}}, consumer_generation=None))
    assert r.status_code == 409 and "consumer generation conflict" in detail(r)
    gen = api.get(url, mv="1.28").json()["consumer_generation"]
    assert gen == 1
    assert api.put(url, mv="1.28", json=body({provider.uuid: {"VCPU": 2}},
                                             consumer_generation=gen)).status_code == 204
    # The same (now stale) generation again: the second writer loses.
    r = api.put(url, mv="1.28", json=body({provider.uuid: {"VCPU": 3}}, consumer_generation=gen))
    assert r.status_code == 409
    assert "expected 2 but got 1" in detail(r)
    assert _used(consumer) == {(provider.uuid, "VCPU"): 2}
    # Older microversions do not check it.
    assert api.put(url, mv="1.27", json=body({provider.uuid: {"VCPU": 3}})).status_code == 204
    assert Consumer.objects.get(uuid=consumer).generation == 3


def test_1_28_empty_allocations_remove_the_consumer(api, provider):
    consumer = new_uuid()
    url = f"/allocations/{consumer}"
    api.put(url, mv="1.28", json=body({provider.uuid: {"VCPU": 1}}, consumer_generation=None))
    r = api.put(url, mv="1.28", json=body({}, consumer_generation=1))
    assert r.status_code == 204
    assert not Consumer.objects.filter(uuid=consumer).exists()
    assert api.get(url, mv="1.28").json() == {"allocations": {}}
    # And the consumer can start again with null.
    assert api.put(url, mv="1.28", json=body({provider.uuid: {"VCPU": 1}},
                                             consumer_generation=None)).status_code == 204


def test_1_27_empty_allocations_rejected(api, provider):
    r = api.put(f"/allocations/{new_uuid()}", mv="1.27", json=body({}))
    assert r.status_code == 400


def test_project_and_user_follow_the_latest_write(api, provider, settings):
    consumer = new_uuid()
    url = f"/allocations/{consumer}"
    api.put(url, mv="1.12", json=body({provider.uuid: {"VCPU": 1}}))
    api.put(url, mv="1.12", json=body({provider.uuid: {"VCPU": 1}}, project="p2", user="u2"))
    c = Consumer.objects.get(uuid=consumer)
    assert (c.project.external_id, c.user.external_id) == ("p2", "u2")
    assert c.generation == 2
    # A pre-1.8 write (no project/user given) hands the consumer to the
    # incomplete-consumer ids, as upstream does.
    api.put(url, mv="1.0", json=list_body({provider.uuid: {"VCPU": 2}}))
    c.refresh_from_db()
    assert (c.project.external_id, c.user.external_id) == (
        settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID,
        settings.PLACEMENT_INCOMPLETE_CONSUMER_USER_ID)
    assert Project.objects.filter(external_id="p2").count() == 1
    assert User.objects.filter(external_id="u2").count() == 1


# --- consumer type (1.38) ----------------------------------------------------


def test_1_38_requires_consumer_type(api, provider):
    r = api.put(f"/allocations/{new_uuid()}", mv="1.38",
                json=body({provider.uuid: {"VCPU": 1}}, consumer_generation=None))
    assert r.status_code == 400
    assert "'consumer_type' is a required property" in detail(r)


def test_1_38_malformed_consumer_type(api, provider):
    r = api.put(f"/allocations/{new_uuid()}", mv="1.38",
                json=body({provider.uuid: {"VCPU": 1}}, consumer_generation=None,
                          consumer_type="instance"))
    assert r.status_code == 400
    assert "'instance' does not match '^[A-Z0-9_]+$'" in detail(r)


def test_1_37_rejects_consumer_type(api, provider):
    r = api.put(f"/allocations/{new_uuid()}", mv="1.37",
                json=body({provider.uuid: {"VCPU": 1}}, consumer_generation=None,
                          consumer_type="INSTANCE"))
    assert r.status_code == 400


def test_1_38_type_set_changed_and_kept(api, provider):
    consumer = new_uuid()
    url = f"/allocations/{consumer}"
    api.put(url, mv="1.36", json=body({provider.uuid: {"VCPU": 1}}, consumer_generation=None))
    assert api.get(url, mv="1.38").json()["consumer_type"] == "unknown"
    assert api.put(url, mv="1.38", json=body({provider.uuid: {"VCPU": 1}}, consumer_generation=1,
                                             consumer_type="INSTANCE")).status_code == 204
    assert api.get(url, mv="1.38").json()["consumer_type"] == "INSTANCE"
    assert api.put(url, mv="1.38", json=body({provider.uuid: {"VCPU": 1}}, consumer_generation=2,
                                             consumer_type="PONY")).status_code == 204
    assert api.get(url, mv="1.38").json()["consumer_type"] == "PONY"
    # A pre-1.38 write keeps the type.
    api.put(url, mv="1.36", json=body({provider.uuid: {"VCPU": 1}}, consumer_generation=3))
    assert api.get(url, mv="1.38").json()["consumer_type"] == "PONY"
    assert set(ConsumerType.objects.values_list("name", flat=True)) >= {"INSTANCE", "PONY"}


def test_1_34_mappings_accepted_and_ignored(api, provider):
    r = api.put(f"/allocations/{new_uuid()}", mv="1.34",
                json=body({provider.uuid: {"VCPU": 1}}, consumer_generation=None,
                          mappings={"": [provider.uuid]}))
    assert r.status_code == 204
    r = api.put(f"/allocations/{new_uuid()}", mv="1.33",
                json=body({provider.uuid: {"VCPU": 1}}, consumer_generation=None,
                          mappings={"": [provider.uuid]}))
    assert r.status_code == 400


def test_put_needs_policy(api_factory, provider):
    client = api_factory(token="someone:proj")
    r = client.put(f"/allocations/{new_uuid()}", json=list_body({provider.uuid: {"VCPU": 1}}))
    assert r.status_code == 403
    assert not Allocation.objects.exists()


def test_nul_in_project_is_400(api, provider):
    r = api.put(f"/allocations/{new_uuid()}", mv="1.12",
                json=body({provider.uuid: {"VCPU": 1}}, project="a\x00b"))
    assert r.status_code == 400
    assert not Consumer.objects.exists()


def test_1_34_empty_or_malformed_mappings(api, provider):
    for mappings in ({}, {"alpha": "beta"}):
        r = api.put(f"/allocations/{new_uuid()}", mv="1.34",
                    json=body({provider.uuid: {"VCPU": 1}}, consumer_generation=None,
                              mappings=mappings))
        assert r.status_code == 400
        assert "JSON does not validate" in detail(r)


def test_provider_uuid_spellings_are_one_provider(api, provider):
    consumer = new_uuid()
    upper = provider.uuid.upper()
    data = list_body({provider.uuid: {"VCPU": 1}})
    data["allocations"].append({"resource_provider": {"uuid": upper}, "resources": {"VCPU": 2}})
    r = api.put(f"/allocations/{consumer}", json=data)
    assert r.status_code == 204, r.content
    assert _used(consumer) == {(provider.uuid, "VCPU"): 2}
    r = api.put(f"/allocations/{consumer}", mv="1.12",
                json=body({provider.uuid: {"VCPU": 1}, upper: {"DISK_GB": 10}}))
    assert r.status_code == 204
    assert _used(consumer) == {(provider.uuid, "VCPU"): 1, (provider.uuid, "DISK_GB"): 10}
    assert api.get(f"/resource_providers/{upper}/usages").json()["usages"]["VCPU"] == 1
