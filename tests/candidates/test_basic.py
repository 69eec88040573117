"""GET /allocation_candidates: single providers, sharing providers, traits, limit."""
import pytest

from tests.support.world import uuids_in

URL = "/allocation_candidates"


@pytest.fixture
def shared(world):
    """Two compute nodes and two sharing disks in one aggregate (like SharedStorageFixture)."""
    agg = world.aggregate()
    w = world
    w.cn1 = w.provider("cn1", inventory={"VCPU": 24, "MEMORY_MB": 2048}, aggs=[agg],
                       traits=["HW_CPU_X86_SSE"])
    w.cn2 = w.provider("cn2", inventory={"VCPU": 24, "MEMORY_MB": 2048,
                                         "DISK_GB": {"total": 2000, "reserved": 100}},
                       aggs=[agg])
    w.ss1 = w.provider("ss1", inventory={"DISK_GB": 2000}, aggs=[agg],
                       traits=["MISC_SHARES_VIA_AGGREGATE"])
    w.ss2 = w.provider("ss2", inventory={"DISK_GB": 2000}, aggs=[agg],
                       traits=["MISC_SHARES_VIA_AGGREGATE"])
    w.agg = agg
    return w


def test_before_1_10_is_404(api):
    assert api.get(URL + "?resources=VCPU:1", mv="1.9").status_code == 404


def test_sharing_combinations(api, shared):
    resp = api.get(URL + "?resources=VCPU:1,MEMORY_MB:1024,DISK_GB:100", mv="1.12")
    assert resp.status_code == 200
    body = resp.json()
    w = shared
    assert uuids_in(body) == {
        frozenset([w.cn1.uuid, w.ss1.uuid]),
        frozenset([w.cn1.uuid, w.ss2.uuid]),
        frozenset([w.cn2.uuid]),
        frozenset([w.cn2.uuid, w.ss1.uuid]),
        frozenset([w.cn2.uuid, w.ss2.uuid]),
    }
    assert len(body["allocation_requests"]) == 5
    assert body["provider_summaries"][w.cn2.uuid]["resources"]["DISK_GB"] == {
        "capacity": 1900, "used": 0}
    assert set(body["provider_summaries"]) == {w.cn1.uuid, w.cn2.uuid, w.ss1.uuid, w.ss2.uuid}


def test_list_form_before_1_12(api, shared):
    body = api.get(URL + "?resources=VCPU:1", mv="1.10").json()
    assert len(body["allocation_requests"]) == 2
    first = body["allocation_requests"][0]["allocations"]
    assert isinstance(first, list)
    assert first[0]["resources"] == {"VCPU": 1}
    assert set(first[0]["resource_provider"]) == {"uuid"}


def test_required_and_forbidden_traits(api, shared):
    body = api.get(URL + "?resources=VCPU:1,MEMORY_MB:1024,DISK_GB:100&required=HW_CPU_X86_SSE",
                   mv="1.17").json()
    assert len(body["allocation_requests"]) == 2
    assert body["provider_summaries"][shared.cn1.uuid]["traits"] == ["HW_CPU_X86_SSE"]
    body = api.get(URL + "?resources=VCPU:1,MEMORY_MB:1024,DISK_GB:100&required=!HW_CPU_X86_SSE",
                   mv="1.22").json()
    assert len(body["allocation_requests"]) == 3


def test_usage_counts_against_capacity(api, world):
    rp = world.provider("cn", inventory={"VCPU": 4})
    world.allocate(rp, "VCPU", 3)
    assert len(api.get(URL + "?resources=VCPU:1", mv="1.12").json()["allocation_requests"]) == 1
    assert len(api.get(URL + "?resources=VCPU:2", mv="1.12").json()["allocation_requests"]) == 0
    summary = api.get(URL + "?resources=VCPU:1", mv="1.12").json()["provider_summaries"]
    assert summary[rp.uuid]["resources"]["VCPU"] == {"capacity": 4, "used": 3}


def test_groups_asking_one_class_share_its_free_capacity(api, world):
    # The combiner keeps an account of what the groups take together only
    # when two of them ask for one class; here they do, and the one free
    # VCPU fits either group but not both.
    rp = world.provider("cn", inventory={"VCPU": 2, "DISK_GB": 10})
    world.allocate(rp, "VCPU", 1)
    query = URL + "?resources1=VCPU:1&resources2=VCPU:1&group_policy=none"
    assert api.get(query, mv="1.25").json()["allocation_requests"] == []
    query = URL + "?resources1=VCPU:1&resources2=DISK_GB:10&group_policy=none"
    assert len(api.get(query, mv="1.25").json()["allocation_requests"]) == 1


def test_limit(api, shared):
    body = api.get(URL + "?resources=VCPU:1,MEMORY_MB:1024,DISK_GB:100&limit=1", mv="1.16").json()
    assert len(body["allocation_requests"]) == 1
    body = api.get(URL + "?resources=VCPU:1,MEMORY_MB:1024,DISK_GB:100&limit=10&limit=1",
                   mv="1.16").json()
    assert len(body["allocation_requests"]) == 5


def test_member_of(api, shared, world):
    other = world.aggregate()
    body = api.get(URL + f"?resources=VCPU:1&member_of={shared.agg.uuid}", mv="1.21").json()
    assert len(body["allocation_requests"]) == 2
    body = api.get(URL + f"?resources=VCPU:1&member_of={other.uuid}", mv="1.21").json()
    assert body["allocation_requests"] == []
    body = api.get(URL + f"?resources=VCPU:1&member_of=in:{other.uuid},{shared.agg.uuid}",
                   mv="1.21").json()
    assert len(body["allocation_requests"]) == 2
    body = api.get(URL + f"?resources=VCPU:1&member_of=!{shared.agg.uuid}", mv="1.32").json()
    assert body["allocation_requests"] == []


def test_provider_summaries_all_classes_from_1_27(api, shared):
    old = api.get(URL + "?resources=VCPU:1", mv="1.26").json()["provider_summaries"]
    new = api.get(URL + "?resources=VCPU:1", mv="1.27").json()["provider_summaries"]
    assert set(old[shared.cn2.uuid]["resources"]) == {"VCPU"}
    assert set(new[shared.cn2.uuid]["resources"]) == {"VCPU", "MEMORY_MB", "DISK_GB"}


def test_policy(api_factory, shared):
    resp = api_factory(token="someone").get(URL + "?resources=VCPU:1", mv="1.12")
    assert resp.status_code == 403


def test_cache_headers_from_1_15(api, shared):
    resp = api.get(URL + "?resources=VCPU:1", mv="1.15")
    assert resp["cache-control"] == "no-cache"
    assert "last-modified" in resp


def test_groups_on_one_provider_are_merged_in_class_order(api, world):
    # A candidate whose groups use one provider lists it once: the amounts
    # of a class added up, its classes in class order whatever the order of
    # the groups that ask for them.
    rp = world.provider("cn", inventory={"VCPU": 8, "MEMORY_MB": 1024})
    for query, resources in [
        ("?resources1=VCPU:1&resources2=VCPU:2,MEMORY_MB:64", {"VCPU": 3, "MEMORY_MB": 64}),
        ("?resources1=MEMORY_MB:64&resources2=VCPU:1", {"VCPU": 1, "MEMORY_MB": 64}),
    ]:
        body = api.get(URL + query + "&group_policy=none", mv="1.34").json()
        (request,) = body["allocation_requests"]
        assert list(request["allocations"]) == [rp.uuid]
        assert list(request["allocations"][rp.uuid]["resources"].items()) == list(
            resources.items())
        assert request["mappings"] == {"1": [rp.uuid], "2": [rp.uuid]}
