"""A cloud built through the API, as a client would (the fullness and names tests)."""
import uuid


MV = "1.39"


def api_provider(api, name, parent=None, inventory=None, traits=(), aggregates=()):
    body = {"name": name, "uuid": str(uuid.uuid4())}
    if parent:
        body["parent_provider_uuid"] = parent
    assert api.post("/resource_providers", json=body, mv=MV).status_code == 200
    rp = body["uuid"]
    if inventory:
        inv = {rc: spec if isinstance(spec, dict) else {"total": spec}
               for rc, spec in inventory.items()}
        assert api.put(f"/resource_providers/{rp}/inventories", mv=MV, json={
            "resource_provider_generation": 0, "inventories": inv}).status_code == 200
    gen = api.get(f"/resource_providers/{rp}", mv=MV).json()["generation"]
    if traits:
        assert api.put(f"/resource_providers/{rp}/traits", mv=MV, json={
            "resource_provider_generation": gen, "traits": list(traits)}).status_code == 200
        gen += 1
    if aggregates:
        assert api.put(f"/resource_providers/{rp}/aggregates", mv=MV, json={
            "resource_provider_generation": gen, "aggregates": list(aggregates)}).status_code == 200
    return rp


def api_allocate(api, allocations, consumer_type="INSTANCE"):
    consumer = str(uuid.uuid4())
    resp = api.put(f"/allocations/{consumer}", mv=MV, json={
        "allocations": {rp: {"resources": res} for rp, res in allocations.items()},
        "project_id": "p", "user_id": "u", "consumer_generation": None,
        "consumer_type": consumer_type})
    assert resp.status_code == 204, resp.content
    return consumer
