"""The upstream bugs this service does not copy (docs/conformance.md, "Deliberate
differences from upstream"): what a client sees here instead."""
from tests.fidelity.conftest import new_uuid


def _aggregates(api, rp, aggs):
    gen = api.get(f"/resource_providers/{rp}", mv="1.19").json()["generation"]
    return api.put(f"/resource_providers/{rp}/aggregates", mv="1.19",
                   json={"aggregates": aggs, "resource_provider_generation": gen}).json()[
        "resource_provider_generation"]


def test_nested_sharing_provider_is_offered_not_a_500(cloud, api):
    """U1: a sharing provider with a parent (upstream: 500)."""
    agg = new_uuid()
    compute = cloud.provider()
    numa = cloud.provider(parent=compute, inventory={"MEMORY_MB": {"total": 4096}})
    pool_root = cloud.provider()
    pool = cloud.provider(parent=pool_root, inventory={"IPV4_ADDRESS": {"total": 100}})
    api.put(f"/resource_providers/{pool}/traits", mv="1.6", json={
        "traits": ["MISC_SHARES_VIA_AGGREGATE"],
        "resource_provider_generation": cloud.generation(pool)})
    _aggregates(api, pool, [agg])
    _aggregates(api, compute, [agg])

    response = api.get("/allocation_candidates?resources=MEMORY_MB:512,IPV4_ADDRESS:1"
                       f"&member_of={agg}", mv="1.29")

    assert response.status_code == 200
    assert [r["allocations"] for r in response.json()["allocation_requests"]] == [{
        numa: {"resources": {"MEMORY_MB": 512}}, pool: {"resources": {"IPV4_ADDRESS": 1}}}]


def test_unknown_trait_in_a_later_group_is_a_400(api):
    """U2: upstream answers 200 [] when an earlier group matches nothing."""
    response = api.get("/allocation_candidates?resources=VCPU:99999999&resources1=VCPU:1"
                       "&required1=CUSTOM_NO_SUCH_TRAIT", mv="1.25")
    assert response.status_code == 400
    assert "CUSTOM_NO_SUCH_TRAIT" in response.json()["errors"][0]["detail"]


def test_deleting_an_inventory_in_use_says_inventory_inuse(cloud, api):
    """U4: upstream's code there is placement.concurrent_update."""
    rp = cloud.provider(inventory={"VCPU": {"total": 8}})
    assert cloud.claim(new_uuid(), {rp: {"VCPU": 1}}).status_code == 204
    response = api.delete(f"/resource_providers/{rp}/inventories/VCPU", mv="1.23")
    assert response.status_code == 409
    assert response.json()["errors"][0]["code"] == "placement.inventory.inuse"


def test_put_of_a_child_provider_has_last_modified(cloud, api):
    """U5: upstream sends none there."""
    root = cloud.provider()
    child = cloud.provider(parent=root)
    response = api.put(f"/resource_providers/{child}", mv="1.15",
                       json={"name": f"renamed-{child}", "parent_provider_uuid": root})
    assert response.status_code == 200
    assert "last-modified" in response


def test_put_empty_on_a_new_consumer_leaves_nothing_behind(cloud, api):
    """U6: upstream keeps an empty consumer, so the next null is a 409."""
    rp = cloud.provider(inventory={"VCPU": {"total": 8}})
    consumer = new_uuid()
    assert cloud.claim(consumer, {}).status_code == 204
    assert api.get(f"/allocations/{consumer}", mv="1.28").json() == {"allocations": {}}
    assert cloud.claim(consumer, {rp: {"VCPU": 1}}, generation=None).status_code == 204


def test_two_groups_asking_one_class_in_one_tree_sum_right(cloud, api):
    """U7: upstream's candidates take 12 of one provider; 8 is asked."""
    root = cloud.provider()
    cloud.provider(parent=root, inventory={"VCPU": {"total": 8}})
    cloud.provider(parent=root, inventory={"VCPU": {"total": 8}})
    response = api.get("/allocation_candidates?resources=VCPU:4&resources1=VCPU:4"
                       "&group_policy=none", mv="1.29")
    totals = sorted(sum(res["resources"]["VCPU"] for res in r["allocations"].values())
                    for r in response.json()["allocation_requests"])
    assert totals and set(totals) == {8}
    for r in response.json()["allocation_requests"]:
        assert all(res["resources"]["VCPU"] <= 8 for res in r["allocations"].values())
