"""Allocation reads and writes answer as upstream does (B01, B04, B05, B06, B07, B13)."""
import pytest

from tests.fidelity.conftest import PROJECT, USER, new_uuid


def test_provider_allocations_carry_consumer_generation_from_1_28(cloud, api):
    """B01: each consumer on GET /resource_providers/{uuid}/allocations has
    its consumer_generation at 1.28+, and not before."""
    rp = cloud.provider(inventory={"VCPU": {"total": 8}})
    first, second = new_uuid(), new_uuid()
    assert cloud.claim(first, {rp: {"VCPU": 1}}).status_code == 204
    assert cloud.claim(second, {rp: {"VCPU": 1}}).status_code == 204
    assert cloud.claim(second, {rp: {"VCPU": 2}}, generation=1).status_code == 204

    body = api.get(f"/resource_providers/{rp}/allocations", mv="1.28").json()
    assert body["allocations"][first] == {"resources": {"VCPU": 1}, "consumer_generation": 1}
    assert body["allocations"][second] == {"resources": {"VCPU": 2}, "consumer_generation": 2}
    older = api.get(f"/resource_providers/{rp}/allocations", mv="1.27").json()
    assert older["allocations"][second] == {"resources": {"VCPU": 2}}


def test_put_empty_allocations_bumps_the_providers_the_consumer_held(cloud, api):
    """B04: PUT {"allocations": {}} bumps each provider the consumer held."""
    a = cloud.provider(inventory={"VCPU": {"total": 8}})
    b = cloud.provider(inventory={"DISK_GB": {"total": 100}})
    untouched = cloud.provider(inventory={"VCPU": {"total": 8}})
    consumer = new_uuid()
    assert cloud.claim(consumer, {a: {"VCPU": 1}, b: {"DISK_GB": 10}}).status_code == 204
    before = {rp: cloud.generation(rp) for rp in (a, b, untouched)}

    assert cloud.claim(consumer, {}, generation=1).status_code == 204

    assert {rp: cloud.generation(rp) for rp in (a, b, untouched)} == {
        a: before[a] + 1, b: before[b] + 1, untouched: before[untouched]}
    assert api.get(f"/allocations/{consumer}", mv="1.28").json() == {"allocations": {}}


def test_post_empty_allocations_bumps_held_providers_not_those_moved_from(cloud, api):
    """B04: in POST /allocations a consumer emptied with {} bumps the
    providers it held; a consumer that moves elsewhere does not bump the
    provider it leaves (only the one it arrives on)."""
    a = cloud.provider(inventory={"VCPU": {"total": 8}})
    b = cloud.provider(inventory={"VCPU": {"total": 8}})
    c = cloud.provider(inventory={"VCPU": {"total": 8}})
    emptied, moved = new_uuid(), new_uuid()
    assert cloud.claim(emptied, {a: {"VCPU": 1}}).status_code == 204
    assert cloud.claim(moved, {b: {"VCPU": 1}}).status_code == 204
    before = {rp: cloud.generation(rp) for rp in (a, b, c)}

    response = api.post("/allocations", mv="1.28", json={
        emptied: {"allocations": {}, "project_id": PROJECT, "user_id": USER,
                  "consumer_generation": 1},
        moved: {"allocations": {c: {"resources": {"VCPU": 1}}}, "project_id": PROJECT,
                "user_id": USER, "consumer_generation": 1},
    })

    assert response.status_code == 204, response.content
    assert {rp: cloud.generation(rp) for rp in (a, b, c)} == {
        a: before[a] + 1, b: before[b], c: before[c] + 1}


def _over_capacity_host(cloud, api):
    """A provider whose VCPU total was cut from 4 to 2 under a usage of 4."""
    rp = cloud.provider(inventory={"VCPU": {"total": 4}})
    instance = new_uuid()
    assert cloud.claim(instance, {rp: {"VCPU": 4}}).status_code == 204
    response = api.put(f"/resource_providers/{rp}/inventories/VCPU", mv="1.28",
                       json={"total": 2, "resource_provider_generation": cloud.generation(rp)})
    assert response.status_code == 200
    return rp, instance


def test_post_move_on_an_over_capacity_provider_is_allowed(cloud, api):
    """B05: Nova's migration moves the instance's allocations to the
    migration consumer on the same, over-capacity host: usage stays 4."""
    rp, instance = _over_capacity_host(cloud, api)
    migration = new_uuid()

    response = api.post("/allocations", mv="1.28", json={
        instance: {"allocations": {}, "project_id": PROJECT, "user_id": USER,
                   "consumer_generation": 1},
        migration: {"allocations": {rp: {"resources": {"VCPU": 4}}}, "project_id": PROJECT,
                    "user_id": USER, "consumer_generation": None},
    })

    assert response.status_code == 204, response.content
    usages = api.get(f"/resource_providers/{rp}/usages", mv="1.28").json()["usages"]
    assert usages == {"VCPU": 4}
    assert api.get(f"/allocations/{migration}", mv="1.28").json()["allocations"] == {
        rp: {"generation": cloud.generation(rp), "resources": {"VCPU": 4}}}


@pytest.mark.parametrize("amount, status", [(3, 204), (4, 204), (5, 409)])
def test_put_on_an_over_capacity_provider_may_shrink_or_keep_not_grow(cloud, api, amount,
                                                                        status):
    """B05: PUT of the same consumer: no worse than before (3 or 4 of a
    capacity 2 under a usage of 4) is allowed, growing (5) is refused."""
    rp, instance = _over_capacity_host(cloud, api)

    response = cloud.claim(instance, {rp: {"VCPU": amount}}, generation=1)

    assert response.status_code == status, response.content
    used = api.get(f"/resource_providers/{rp}/usages", mv="1.28").json()["usages"]["VCPU"]
    assert used == (amount if status == 204 else 4)
    if status == 409:
        assert "would exceed the capacity" in response.json()["errors"][0]["detail"]


def test_a_new_consumer_on_an_over_capacity_provider_is_refused(cloud, api):
    """B05: the allowance is for what the write's own consumers held; a new
    claim on an over-capacity provider still gets 409."""
    rp, _ = _over_capacity_host(cloud, api)
    assert cloud.claim(new_uuid(), {rp: {"VCPU": 1}}).status_code == 409


def test_put_below_1_8_resets_the_owner_to_the_incomplete_consumer_ids(cloud, api, settings):
    """B06: a PUT without project_id/user_id (< 1.8) on an existing consumer
    gives it the incomplete-consumer ids, so per-project usages move."""
    rp = cloud.provider(inventory={"VCPU": {"total": 8}})
    consumer = new_uuid()
    response = api.put(f"/allocations/{consumer}", mv="1.12", json={
        "allocations": {rp: {"resources": {"VCPU": 1}}}, "project_id": PROJECT, "user_id": USER})
    assert response.status_code == 204

    response = api.put(f"/allocations/{consumer}", mv="1.7", json={
        "allocations": [{"resource_provider": {"uuid": rp}, "resources": {"VCPU": 2}}]})

    assert response.status_code == 204
    body = api.get(f"/allocations/{consumer}", mv="1.12").json()
    assert (body["project_id"], body["user_id"]) == (
        settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID,
        settings.PLACEMENT_INCOMPLETE_CONSUMER_USER_ID)
    assert api.get(f"/usages?project_id={PROJECT}", mv="1.9").json() == {"usages": {}}
    incomplete = settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID
    assert api.get(f"/usages?project_id={incomplete}", mv="1.9").json() == {
        "usages": {"VCPU": 2}}


@pytest.mark.parametrize("path", ["put", "post"])
@pytest.mark.parametrize("mappings", [
    {"_BAD SUFFIX": ["RP"]},
    {"": ["RP", "RP"]},
    {"good": ["RP", "RP"]},
])
def test_mappings_accepted_as_leniently_as_upstream(cloud, api, path, mappings):
    """B07: upstream's mappings schema (1.34+) has an unanchored suffix
    pattern, no ban on other keys and no uniqueness of the uuids."""
    rp = cloud.provider(inventory={"VCPU": {"total": 8}})
    mappings = {key: [rp if v == "RP" else v for v in value] for key, value in mappings.items()}
    consumer = new_uuid()
    one = {"allocations": {rp: {"resources": {"VCPU": 1}}}, "project_id": PROJECT,
           "user_id": USER, "consumer_generation": None, "mappings": mappings}
    if path == "put":
        response = api.put(f"/allocations/{consumer}", mv="1.34", json=one)
    else:
        response = api.post("/allocations", mv="1.34", json={consumer: one})
    assert response.status_code == 204, response.content


def test_mappings_values_must_still_be_lists_of_uuids(cloud, api):
    """B07: a key with a suffix character still has its value checked."""
    rp = cloud.provider(inventory={"VCPU": {"total": 8}})
    response = api.put(f"/allocations/{new_uuid()}", mv="1.34", json={
        "allocations": {rp: {"resources": {"VCPU": 1}}}, "project_id": PROJECT,
        "user_id": USER, "consumer_generation": None, "mappings": {"_BAD SUFFIX": ["x"]}})
    assert response.status_code == 400


@pytest.mark.parametrize("amount", [2147483648, 10**20])
def test_allocation_amount_beyond_32_bits_is_a_capacity_conflict(cloud, api, amount):
    """B13: no schema bound on an amount: upstream refuses it as beyond the
    inventory's max_unit (409), and nothing is written."""
    rp = cloud.provider(inventory={"VCPU": {"total": 8}})
    consumer = new_uuid()
    response = cloud.claim(consumer, {rp: {"VCPU": amount}})
    assert response.status_code == 409, response.content
    assert "would violate inventory constraints" in response.json()["errors"][0]["detail"]
    assert api.get(f"/allocations/{consumer}", mv="1.28").json() == {"allocations": {}}
