"""POST /allocations: many consumers in one transaction (1.13+)."""
from allocations.models import Allocation, Consumer
from tests.support.claims import PROJECT, USER, body, detail, new_uuid


def _snapshot():
    return sorted(
        Allocation.objects.values_list("consumer__uuid", "resource_provider__uuid",
                                       "resource_class__name", "used")
    ), sorted(Consumer.objects.values_list("uuid", "generation"))


def test_only_post_and_not_before_1_13(api):
    r = api.get("/allocations", mv="1.13")
    assert r.status_code == 405
    assert r["allow"] == "POST"
    assert r.json()["errors"][0]["title"] == "Method Not Allowed"
    assert api.post("/allocations", mv="1.12", json={}).status_code == 404


def test_two_consumers_then_clear_one(api, provider, provider2):
    instance, migration = new_uuid(), new_uuid()
    data = {
        instance: body({provider.uuid: {"VCPU": 2}, provider2.uuid: {"DISK_GB": 5}}),
        migration: body({provider2.uuid: {"VCPU": 2}}),
    }
    r = api.post("/allocations", mv="1.13", json=data)
    assert r.status_code == 204, r.content
    got = api.get(f"/allocations/{instance}", mv="1.28").json()
    assert got["consumer_generation"] == 1
    assert got["allocations"][provider2.uuid]["resources"] == {"DISK_GB": 5}
    provider2.refresh_from_db()
    assert provider2.generation == 1  # one bump although two consumers landed on it
    data[migration] = body({})
    assert api.post("/allocations", mv="1.13", json=data).status_code == 204
    assert not Consumer.objects.filter(uuid=migration).exists()
    assert Consumer.objects.get(uuid=instance).generation == 2
    usages = api.get(f"/usages?project_id={PROJECT}", mv="1.13").json()["usages"]
    assert usages == {"VCPU": 2, "DISK_GB": 5}


def test_failure_in_one_consumer_leaves_all_unchanged(api, provider, provider2):
    a, b = new_uuid(), new_uuid()
    api.post("/allocations", mv="1.13", json={
        a: body({provider.uuid: {"VCPU": 2}}), b: body({provider2.uuid: {"VCPU": 2}}),
    })
    before = _snapshot()
    gens = (provider.generation, provider2.generation)
    # a moves fine, b asks for more than provider2 has: nothing may change.
    r = api.post("/allocations", mv="1.13", json={
        a: body({provider2.uuid: {"VCPU": 1}}),
        b: body({provider2.uuid: {"VCPU": 8}}),
        new_uuid(): body({provider.uuid: {"VCPU": 1}}),
    })
    assert r.status_code == 409
    assert "The requested amount would exceed the capacity" in detail(r)
    assert _snapshot() == before
    provider.refresh_from_db()
    provider2.refresh_from_db()
    assert (provider.generation, provider2.generation) == (gens[0] + 1, gens[1] + 1)


def test_capacity_counts_the_whole_request(api, provider):
    # 3 x 3 VCPU on 8: each fits alone, together they do not (bug 1778743).
    data = {new_uuid(): body({provider.uuid: {"VCPU": 3}}, consumer_generation=None)
            for _ in range(3)}
    r = api.post("/allocations", mv="1.28", json=data)
    assert r.status_code == 409
    assert not Allocation.objects.exists()
    assert not Consumer.objects.exists()


def test_swap_between_consumers_when_full(api, provider):
    a, b = new_uuid(), new_uuid()
    api.put(f"/allocations/{a}", mv="1.12", json=body({provider.uuid: {"VCPU": 4}}))
    api.put(f"/allocations/{b}", mv="1.12", json=body({provider.uuid: {"VCPU": 4}}))
    # Full provider: a gives its 4 to a new consumer in the same request.
    c = new_uuid()
    r = api.post("/allocations", mv="1.13",
                 json={a: body({}), c: body({provider.uuid: {"VCPU": 4}})})
    assert r.status_code == 204
    assert set(Consumer.objects.values_list("uuid", flat=True)) == {b, c}


def test_errors(api, provider):
    inst = new_uuid()
    cases = [
        ({inst: {"allocations": {provider.uuid: {"cow": "moo"}}, "project_id": PROJECT,
                 "user_id": USER}}, 400, "JSON does not validate"),
        ({inst: {"cow": "moo"}}, 400, "JSON does not validate"),
        ({inst: body({new_uuid(): {"VCPU": 1}})}, 400, "that does not exist"),
        ({inst: body({provider.uuid: {"VCPU": 1, "PCI_DEVICE": 1}})}, 409,
         "Inventory for 'PCI_DEVICE' on"),
        ({inst: body({provider.uuid: {"CUSTOM_PONY": 1}})}, 400,
         "No such resource class CUSTOM_PONY"),
        ({"a" * 36: body({provider.uuid: {"VCPU": 1}})}, 400,
         "Malformed consumer_uuid"),
        ({}, 400, "JSON does not validate"),
    ]
    for data, status, message in cases:
        r = api.post("/allocations", mv="1.13", json=data)
        assert r.status_code == status, (data, r.content)
        assert message in detail(r)
    assert not Consumer.objects.exists()


def test_consumer_generations_1_28(api, provider):
    a, b = new_uuid(), new_uuid()
    data = {a: body({provider.uuid: {"VCPU": 1}}), b: body({provider.uuid: {"VCPU": 1}})}
    r = api.post("/allocations", mv="1.28", json=data)
    assert r.status_code == 400  # consumer_generation is required
    for value in data.values():
        value["consumer_generation"] = None
    assert api.post("/allocations", mv="1.28", json=data).status_code == 204
    # Stale generation on the first: 409 naming it, nothing changes.
    data[a] = body({provider.uuid: {"VCPU": 2}}, consumer_generation=0)
    data[b] = body({provider.uuid: {"VCPU": 2}}, consumer_generation=1)
    before = _snapshot()
    r = api.post("/allocations", mv="1.28", json=data)
    assert r.status_code == 409
    assert "consumer generation conflict - expected 1 but got 0" in detail(r)
    assert r.json()["errors"][0]["code"] == "placement.concurrent_update"
    assert _snapshot() == before
    data[a]["consumer_generation"] = 1
    assert api.post("/allocations", mv="1.28", json=data).status_code == 204


def test_consumer_type_1_38(api, provider):
    a = new_uuid()
    data = {a: body({provider.uuid: {"VCPU": 1}}, consumer_generation=None)}
    r = api.post("/allocations", mv="1.38", json=data)
    assert r.status_code == 400
    assert "'consumer_type' is a required property" in detail(r)
    data[a]["consumer_type"] = "instance"
    r = api.post("/allocations", mv="1.38", json=data)
    assert "'instance' does not match '^[A-Z0-9_]+$'" in detail(r)
    data[a]["consumer_type"] = "MIGRATION"
    assert api.post("/allocations", mv="1.38", json=data).status_code == 204
    assert api.get(f"/allocations/{a}", mv="1.38").json()["consumer_type"] == "MIGRATION"


def test_post_needs_policy(api_factory, provider):
    r = api_factory(token="someone").post(
        "/allocations", mv="1.13", json={new_uuid(): body({provider.uuid: {"VCPU": 1}})})
    assert r.status_code == 403
