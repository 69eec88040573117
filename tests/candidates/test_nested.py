"""Nested trees: granular groups, group_policy, same_subtree, in_tree, root_required, mappings."""

import pytest

from tests.support.world import uuids_in

URL = "/allocation_candidates"


@pytest.fixture
def numa(world):
    """cn (DISK, MULTI_ATTACH) -> numa0 (VCPU 4) -> fpga0 ; numa1 (VCPU 4, AVX2) -> fpga1."""
    w = world
    w.cn = w.provider("cn", inventory={"DISK_GB": 100}, traits=["COMPUTE_VOLUME_MULTI_ATTACH"])
    w.n0 = w.provider("numa0", parent=w.cn, inventory={"VCPU": 4, "MEMORY_MB": 2048},
                      traits=["HW_NUMA_ROOT"])
    w.n1 = w.provider("numa1", parent=w.cn, inventory={"VCPU": 4, "MEMORY_MB": 2048},
                      traits=["HW_NUMA_ROOT", "HW_CPU_X86_AVX2"])
    w.f0 = w.provider("fpga0", parent=w.n0, inventory={"FPGA": 1})
    w.f1 = w.provider("fpga1", parent=w.n1, inventory={"FPGA": 1})
    return w


def test_tree_combines_providers_from_1_29(api, numa):
    query = URL + "?resources=VCPU:1,DISK_GB:10"
    assert api.get(query, mv="1.28").json()["allocation_requests"] == []
    body = api.get(query, mv="1.29").json()
    assert uuids_in(body) == {frozenset([numa.cn.uuid, numa.n0.uuid]),
                              frozenset([numa.cn.uuid, numa.n1.uuid])}
    summary = body["provider_summaries"]
    assert len(summary) == 5  # the whole tree
    assert summary[numa.f1.uuid]["parent_provider_uuid"] == numa.n1.uuid
    assert summary[numa.f1.uuid]["root_provider_uuid"] == numa.cn.uuid
    assert summary[numa.cn.uuid]["parent_provider_uuid"] is None


def test_granular_isolate_and_none(api, numa):
    base = URL + "?resources1=VCPU:1&resources2=VCPU:1"
    resp = api.get(base, mv="1.25")
    assert resp.status_code == 400
    assert "group_policy" in resp.json()["errors"][0]["detail"]
    isolate = api.get(base + "&group_policy=isolate", mv="1.34").json()
    assert len(isolate["allocation_requests"]) == 2  # (n0, n1) and (n1, n0)
    mappings = {(a["mappings"]["1"][0], a["mappings"]["2"][0])
                for a in isolate["allocation_requests"]}
    assert mappings == {(numa.n0.uuid, numa.n1.uuid), (numa.n1.uuid, numa.n0.uuid)}
    none = api.get(base + "&group_policy=none", mv="1.34").json()
    assert len(none["allocation_requests"]) == 4
    merged = [a["allocations"] for a in none["allocation_requests"] if len(a["allocations"]) == 1]
    assert {list(m.values())[0]["resources"]["VCPU"] for m in merged} == {2}


def test_granular_required_is_per_provider(api, numa):
    body = api.get(URL + "?resources1=VCPU:1&required1=HW_CPU_X86_AVX2", mv="1.25").json()
    assert uuids_in(body) == {frozenset([numa.n1.uuid])}


def test_same_subtree(api, numa):
    query = (URL + "?resources_C=VCPU:1&resources_A=FPGA:1&group_policy=none"
             "&same_subtree=_C,_A")
    body = api.get(query, mv="1.36").json()
    assert uuids_in(body) == {frozenset([numa.n0.uuid, numa.f0.uuid]),
                              frozenset([numa.n1.uuid, numa.f1.uuid])}
    # a resourceless group shows in mappings only
    query = (URL + "?required_N=HW_CPU_X86_AVX2&resources_A=FPGA:1&group_policy=none"
             "&same_subtree=_N,_A")
    body = api.get(query, mv="1.36").json()
    assert len(body["allocation_requests"]) == 1
    request = body["allocation_requests"][0]
    assert list(request["allocations"]) == [numa.f1.uuid]
    assert request["mappings"] == {"_N": [numa.n1.uuid], "_A": [numa.f1.uuid]}


def test_in_tree_and_root_required(api, numa, world):
    other = world.provider("other", inventory={"VCPU": 8})
    body = api.get(URL + f"?resources=VCPU:1&in_tree={numa.f0.uuid}", mv="1.31").json()
    assert uuids_in(body) == {frozenset([numa.n0.uuid]), frozenset([numa.n1.uuid])}
    body = api.get(URL + "?resources=VCPU:1&root_required=COMPUTE_VOLUME_MULTI_ATTACH",
                   mv="1.35").json()
    assert other.uuid not in {u for s in uuids_in(body) for u in s}
    body = api.get(URL + "?resources=VCPU:1&root_required=!COMPUTE_VOLUME_MULTI_ATTACH",
                   mv="1.35").json()
    assert uuids_in(body) == {frozenset([other.uuid])}


def test_any_traits_1_39(api, numa):
    query = URL + "?resources1=VCPU:1&required1=in:HW_CPU_X86_AVX2,CUSTOM_NOPE"
    assert api.get(query, mv="1.38").status_code == 400
    # unknown trait names are still a 400
    assert api.get(query, mv="1.39").status_code == 400
    body = api.get(URL + "?resources1=VCPU:1&required1=in:HW_CPU_X86_AVX2,HW_NUMA_ROOT",
                   mv="1.39").json()
    assert len(body["allocation_requests"]) == 2


@pytest.fixture
def eight_children(world):
    root = world.provider("host")
    world.children = [
        world.provider(f"child{i}", parent=root, inventory={"VCPU": 1}) for i in range(8)
    ]
    return world


def test_eight_children_eight_groups(api, eight_children, settings):
    settings.PLACEMENT_MAX_ALLOCATION_CANDIDATES = 100
    query = URL + "?" + "&".join(f"resources{i}=VCPU:1" for i in range(1, 9))
    for policy in ("none", "isolate"):
        resp = api.get(query + f"&group_policy={policy}", mv="1.34")
        assert resp.status_code == 200
        body = resp.json()
        assert len(body["allocation_requests"]) == 100
        keys = {tuple(sorted((k, tuple(v)) for k, v in a["mappings"].items()))
                for a in body["allocation_requests"]}
        assert len(keys) == 100  # no duplicates
        for a in body["allocation_requests"]:
            assert len(a["allocations"]) == 8


def test_randomize_and_breadth_first(api, world, settings):
    for i in range(5):
        world.provider(f"cn{i}", inventory={"VCPU": 4})
    settings.PLACEMENT_ALLOCATION_CANDIDATES_GENERATION_STRATEGY = "breadth-first"
    settings.PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES = True
    settings.PLACEMENT_MAX_ALLOCATION_CANDIDATES = 3
    body = api.get(URL + "?resources=VCPU:1", mv="1.12").json()
    assert len(body["allocation_requests"]) == 3
    assert len(body["provider_summaries"]) == 3
