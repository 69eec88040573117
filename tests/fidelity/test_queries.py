"""Query strings and candidates as upstream reads them (B14, B15, B19)."""
import pytest
from django.db import connection

from tests.fidelity.conftest import new_uuid


@pytest.mark.parametrize("value, status", [
    ("bad-type", 400), ("lower", 400), ("INSTANCE", 200), ("all", 200), ("unknown", 200),
])
def test_usages_consumer_type_pattern(api, value, status):
    """B14: at 1.38 consumer_type is a type name, ``all`` or ``unknown``."""
    response = api.get(f"/usages?project_id=p&consumer_type={value}", mv="1.38")
    assert response.status_code == status, response.content


def test_class_named_twice_in_resources_last_amount_counts(cloud, api):
    """B15: ``resources=DISK_GB:1,DISK_GB:20`` asks for 20, on
    /resource_providers (1.4+) and /allocation_candidates."""
    small = cloud.provider(inventory={"DISK_GB": {"total": 10}})
    big = cloud.provider(inventory={"DISK_GB": {"total": 100}})

    listed = api.get("/resource_providers?resources=DISK_GB:1,DISK_GB:20", mv="1.4")
    assert listed.status_code == 200
    assert [rp["uuid"] for rp in listed.json()["resource_providers"]] == [big]
    listed = api.get("/resource_providers?resources=DISK_GB:20,DISK_GB:1", mv="1.4")
    assert {rp["uuid"] for rp in listed.json()["resource_providers"]} == {small, big}

    candidates = api.get("/allocation_candidates?resources=DISK_GB:1,DISK_GB:20", mv="1.12")
    assert candidates.status_code == 200
    requests = candidates.json()["allocation_requests"]
    assert [list(r["allocations"]) for r in requests] == [[big]]
    assert requests[0]["allocations"][big]["resources"] == {"DISK_GB": 20}


def _aggregates(api, rp, aggs):
    gen = api.get(f"/resource_providers/{rp}", mv="1.19").json()["generation"]
    response = api.put(f"/resource_providers/{rp}/aggregates", mv="1.19",
                       json={"aggregates": aggs, "resource_provider_generation": gen})
    assert response.status_code == 200


def test_member_of_sets_are_not_spread_between_child_and_root(cloud, api):
    """B19: member_of=A&member_of=B: the provider alone or its root alone
    must be in both; a child in A under a root in B is no candidate."""
    a, b = new_uuid(), new_uuid()
    root = cloud.provider()
    child = cloud.provider(parent=root, inventory={"VCPU": {"total": 8}})
    _aggregates(api, child, [a])
    _aggregates(api, root, [b])
    query = f"/allocation_candidates?resources=VCPU:1&member_of={a}&member_of={b}"

    assert api.get(query, mv="1.24").json()["allocation_requests"] == []

    _aggregates(api, root, [a, b])  # the root alone is in both: the tree qualifies
    assert len(api.get(query, mv="1.29").json()["allocation_requests"]) == 1
    _aggregates(api, root, [])
    _aggregates(api, child, [a, b])  # the child alone is in both
    assert len(api.get(query, mv="1.29").json()["allocation_requests"]) == 1


def test_forbidden_aggregate_on_the_root_still_excludes_the_child(cloud, api):
    """B19's counterpart: a forbidden aggregate on either excludes."""
    a, bad = new_uuid(), new_uuid()
    root = cloud.provider()
    child = cloud.provider(parent=root, inventory={"VCPU": {"total": 8}})
    _aggregates(api, child, [a])
    _aggregates(api, root, [bad])
    query = f"/allocation_candidates?resources=VCPU:1&member_of={a}&member_of=!{bad}"
    assert api.get(query, mv="1.32").json()["allocation_requests"] == []


@pytest.mark.parametrize("query, status", [
    # An in_tree provider that does not exist: the list is empty at once.
    ("in_tree={missing}&resources=CUSTOM_NOPE:1", 200),
    ("in_tree={missing}&required=CUSTOM_NOPE", 200),
    # No provider at all in the aggregate, or with the trait: likewise.
    ("member_of={agg}&resources=CUSTOM_NOPE:1", 200),
    ("required=CUSTOM_T_NONE&resources=CUSTOM_NOPE:1", 200),
    # Filters that match something do not stop the look-up of the rest.
    ("in_tree={rp}&resources=CUSTOM_NOPE:1", 400),
    ("required=HW_CPU_X86_AVX2&resources=CUSTOM_NOPE:1", 400),
    # The trait filter is looked up before member_of, as upstream orders them.
    ("member_of={agg}&required=CUSTOM_NOPE", 400),
])
def test_provider_list_stops_at_the_first_filter_nothing_matches(cloud, api, query, status):
    """Upstream looks GET /resource_providers' filters up in the order
    in_tree, required, member_of, resources, and answers an empty list as
    soon as one matches no provider at all, before it would notice an
    unknown trait or class further on."""
    rp = cloud.provider()
    api.put(f"/resource_providers/{rp}/traits", mv="1.6",
            json={"traits": ["HW_CPU_X86_AVX2"], "resource_provider_generation": 0})
    api.put("/traits/CUSTOM_T_NONE", mv="1.6")
    query = query.format(missing=new_uuid(), agg=new_uuid(), rp=rp)
    response = api.get(f"/resource_providers?{query}", mv="1.22")
    assert response.status_code == status, response.content
    if status == 200:
        assert response.json() == {"resource_providers": []}


def test_trait_name_prefix_follows_the_database_as_upstream(api):
    """U3 is no difference: like upstream, a ``startswith:`` prefix is
    case-insensitive on SQLite and case-sensitive elsewhere (PostgreSQL;
    MariaDB with this service's binary collation)."""
    api.put("/traits/CUSTOM_PREFIX_CASE", mv="1.6")
    names = api.get("/traits?name=startswith:custom_prefix_", mv="1.6").json()["traits"]
    assert names == (["CUSTOM_PREFIX_CASE"] if connection.vendor == "sqlite" else [])
    names = api.get("/traits?name=startswith:CUSTOM_PREFIX_", mv="1.6").json()["traits"]
    assert names == ["CUSTOM_PREFIX_CASE"]
