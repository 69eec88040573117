"""GET /resource_providers: filters, their microversions, their errors, query count."""
import uuid

import pytest

from providers.models import Aggregate, ProviderAggregate, ProviderTrait
from tests.factories import (
    AllocationFactory,
    InventoryFactory,
    ResourceProviderFactory,
    resource_class,
    trait,
)

AGG_A = "83a3d69d-8920-48e2-8914-cadfd8fa2f91"
AGG_B = "99652f11-9f77-46b9-80b7-4b1989be9f8c"
AGG_C = "282d469e-29e2-4a8a-8f2e-31b3202b696a"


def _names(response):
    assert response.status_code == 200, response.content
    return sorted(rp["name"] for rp in response.json()["resource_providers"])


def _error(response):
    return response.json()["errors"][0]["detail"]


def _aggregate(provider, agg_uuid):
    aggregate, _ = Aggregate.objects.get_or_create(uuid=agg_uuid)
    ProviderAggregate.objects.create(resource_provider=provider, aggregate=aggregate)


def _traits(provider, *names):
    for name in names:
        ProviderTrait.objects.create(resource_provider=provider, trait=trait(name))


def test_empty_list(api):
    response = api.get("/resource_providers")
    assert response.status_code == 200
    assert response.json() == {"resource_providers": []}


def test_list_needs_admin(api):
    assert api.get("/resource_providers", token="user").status_code == 403
    assert api.get("/resource_providers", token=None).status_code == 401


def test_list_renders_tree_fields_from_1_14(api):
    root = ResourceProviderFactory(name="root")
    ResourceProviderFactory(name="child", parent=root)
    rows = api.get("/resource_providers", mv="1.14").json()["resource_providers"]
    by_name = {row["name"]: row for row in rows}
    assert by_name["root"]["parent_provider_uuid"] is None
    assert by_name["root"]["root_provider_uuid"] == root.uuid
    assert by_name["child"]["parent_provider_uuid"] == root.uuid
    assert by_name["child"]["root_provider_uuid"] == root.uuid
    old = api.get("/resource_providers", mv="1.13").json()["resource_providers"]
    assert all("root_provider_uuid" not in row for row in old)
    assert len(api.get("/resource_providers", mv="1.10").json()["resource_providers"][0]["links"]) == 5
    assert len(api.get("/resource_providers", mv="1.11").json()["resource_providers"][0]["links"]) == 6


def test_list_query_count_is_bounded(api, django_assert_max_num_queries):
    for index in range(3):
        root = ResourceProviderFactory(name=f"root{index}")
        child = ResourceProviderFactory(parent=root)
        ResourceProviderFactory(parent=child)
    with django_assert_max_num_queries(3):
        response = api.get("/resource_providers", mv="1.14")
    assert len(response.json()["resource_providers"]) == 9
    for index in range(10):
        ResourceProviderFactory(parent=root)
    with django_assert_max_num_queries(3):
        response = api.get("/resource_providers", mv="1.14")
    assert len(response.json()["resource_providers"]) == 19


def test_list_with_every_filter_is_bounded(api, django_assert_max_num_queries):
    provider = ResourceProviderFactory(name="cn")
    InventoryFactory(resource_provider=provider, total=8)
    _aggregate(provider, AGG_A)
    _traits(provider, "HW_CPU_X86_AVX")
    query = (f"/resource_providers?member_of={AGG_A}&resources=VCPU:1"
             f"&required=HW_CPU_X86_AVX&in_tree={provider.uuid}&name=cn")
    with django_assert_max_num_queries(5):
        assert _names(api.get(query, mv="1.18")) == ["cn"]


def test_filter_by_name_and_uuid(api):
    one = ResourceProviderFactory(name="one")
    ResourceProviderFactory(name="two")
    assert _names(api.get("/resource_providers?name=one")) == ["one"]
    assert _names(api.get("/resource_providers?name=nope")) == []
    assert _names(api.get(f"/resource_providers?uuid={one.uuid}")) == ["one"]
    assert _names(api.get(f"/resource_providers?uuid={uuid.uuid4()}")) == []


@pytest.mark.parametrize(
    "query, mv",
    [
        ("uuid=spameggs", "1.0"),
        ("spam=eggs", "1.0"),
        (f"member_of={AGG_A}", "1.2"),
        ("resources=VCPU:1", "1.3"),
        (f"in_tree={AGG_A}", "1.13"),
        ("in_tree=not-a-uuid", "1.14"),
        ("required=HW_CPU_X86_AVX", "1.17"),
    ],
)
def test_invalid_query_parameters(api, query, mv):
    response = api.get(f"/resource_providers?{query}", mv=mv)
    assert response.status_code == 400
    assert "Invalid query string parameters" in _error(response)


def test_in_tree(api):
    root = ResourceProviderFactory(name="root")
    child = ResourceProviderFactory(name="child", parent=root)
    ResourceProviderFactory(name="other")
    assert _names(api.get(f"/resource_providers?in_tree={child.uuid}", mv="1.14")) == [
        "child", "root"]
    assert _names(api.get(f"/resource_providers?in_tree={uuid.uuid4()}", mv="1.14")) == []


# -- member_of --------------------------------------------------------------------


@pytest.fixture
def aggregated(db):
    rp1 = ResourceProviderFactory(name="rp1")
    rp2 = ResourceProviderFactory(name="rp2")
    ResourceProviderFactory(name="rp3")
    _aggregate(rp1, AGG_A)
    _aggregate(rp1, AGG_C)
    _aggregate(rp2, AGG_A)
    _aggregate(rp2, AGG_B)
    return rp1, rp2


def test_member_of_single_and_any_of(api, aggregated):
    assert _names(api.get(f"/resource_providers?member_of={AGG_C}", mv="1.3")) == ["rp1"]
    assert _names(api.get(f"/resource_providers?member_of=in:{AGG_B},{AGG_C}", mv="1.3")) == [
        "rp1", "rp2"]
    assert _names(api.get(f"/resource_providers?member_of=in:{uuid.uuid4()}", mv="1.3")) == []


def test_member_of_repeated_is_all_of_from_1_24(api, aggregated):
    query = f"/resource_providers?member_of={AGG_A}&member_of={AGG_B}"
    response = api.get(query, mv="1.23")
    assert response.status_code == 400
    assert "Multiple member_of parameters are not supported" in _error(response)
    assert _names(api.get(query, mv="1.24")) == ["rp2"]
    query = f"/resource_providers?member_of={AGG_A}&member_of=in:{AGG_B},{AGG_C}"
    assert _names(api.get(query, mv="1.24")) == ["rp1", "rp2"]


def test_member_of_forbidden_from_1_32(api, aggregated):
    response = api.get(f"/resource_providers?member_of=!{AGG_C}", mv="1.31")
    assert response.status_code == 400
    assert "Forbidden member_of parameters are not supported" in _error(response)
    assert _names(api.get(f"/resource_providers?member_of=!{AGG_C}", mv="1.32")) == [
        "rp2", "rp3"]
    assert _names(api.get(f"/resource_providers?member_of=!in:{AGG_C},{AGG_B}", mv="1.32")) == [
        "rp3"]
    query = f"/resource_providers?member_of=!{AGG_C}&member_of={AGG_A}"
    assert _names(api.get(query, mv="1.32")) == ["rp2"]


@pytest.mark.parametrize(
    "value", ["not+a+uuid", "in:", f"in:{AGG_A},!{AGG_B}", "!(^o^)", f"in:{AGG_A},,{AGG_B}"]
)
def test_member_of_malformed_is_400(api, aggregated, value):
    response = api.get(f"/resource_providers?member_of={value}", mv="1.32")
    assert response.status_code == 400
    assert "Expected 'member_of' parameter to contain valid UUID(s)." in _error(response)


# -- resources --------------------------------------------------------------------


@pytest.fixture
def disk_provider(db):
    provider = ResourceProviderFactory(name="cn")
    InventoryFactory(resource_provider=provider, resource_class=resource_class("DISK_GB"),
                     total=2048, reserved=48, min_unit=10, max_unit=1000, step_size=10)
    InventoryFactory(resource_provider=provider, resource_class=resource_class("VCPU"),
                     total=4, max_unit=4, allocation_ratio=1.0)
    AllocationFactory(resource_provider=provider, resource_class=resource_class("VCPU"), used=2)
    ResourceProviderFactory(name="empty")
    return provider


@pytest.mark.parametrize(
    "resources, names",
    [
        ("DISK_GB:500", ["cn"]),
        ("DISK_GB:500,VCPU:2", ["cn"]),
        ("DISK_GB:1", []),  # below min_unit
        ("DISK_GB:1010", []),  # above max_unit
        ("DISK_GB:11", []),  # not a multiple of step_size
        ("VCPU:3", []),  # 2 of 4 already used
        ("MEMORY_MB:1", []),  # no such inventory
    ],
)
def test_resources_filter(api, disk_provider, resources, names):
    assert _names(api.get(f"/resource_providers?resources={resources}", mv="1.4")) == names


def test_resources_respects_allocation_ratio(api):
    provider = ResourceProviderFactory(name="overcommit")
    InventoryFactory(resource_provider=provider, total=4, max_unit=4, allocation_ratio=16.0)
    AllocationFactory(resource_provider=provider, used=60)
    assert _names(api.get("/resource_providers?resources=VCPU:4", mv="1.4")) == ["overcommit"]
    assert _names(api.get("/resource_providers?resources=VCPU:5", mv="1.4")) == []


@pytest.mark.parametrize(
    "resources, fragment",
    [
        ("", "Got: empty string."),
        ("VCPU", "Badly formed resources parameter. Expected resources query string parameter "
                 "in form: ?resources=VCPU:2,MEMORY_MB:1024. Got: VCPU."),
        ("DISK_GB:500,", "Got: ."),
        ("VCPU:fred", "Requested resource VCPU expected positive integer amount. Got: fred."),
        ("VCPU:-2", "Requested resource VCPU requires amount >= 1. Got: -2."),
        ("MYMISSINGCLASS:1", "Invalid resource class in resources parameter"),
    ],
)
def test_resources_errors(api, resources, fragment):
    response = api.get(f"/resource_providers?resources={resources}", mv="1.4")
    assert response.status_code == 400
    assert fragment in _error(response)


# -- required traits ----------------------------------------------------------------


@pytest.fixture
def traited(db):
    left = ResourceProviderFactory(name="left")
    middle = ResourceProviderFactory(name="middle")
    right = ResourceProviderFactory(name="right")
    _traits(left, "HW_CPU_X86_SGX", "STORAGE_DISK_SSD")
    _traits(middle, "MISC_SHARES_VIA_AGGREGATE", "STORAGE_DISK_SSD")
    _traits(right, "HW_CPU_X86_AVX")
    return left, middle, right


def test_required_all_of(api, traited):
    assert _names(api.get("/resource_providers?required=STORAGE_DISK_SSD", mv="1.18")) == [
        "left", "middle"]
    query = "/resource_providers?required=HW_CPU_X86_SGX,MISC_SHARES_VIA_AGGREGATE"
    assert _names(api.get(query, mv="1.18")) == []


def test_required_forbidden_from_1_22(api, traited):
    response = api.get("/resource_providers?required=!STORAGE_DISK_SSD", mv="1.21")
    assert response.status_code == 400
    assert ("Invalid query string parameters: Expected 'required' parameter value of the form: "
            "HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: !STORAGE_DISK_SSD") in _error(response)
    assert _names(api.get("/resource_providers?required=!STORAGE_DISK_SSD", mv="1.22")) == [
        "right"]
    query = "/resource_providers?required=!HW_CPU_X86_SGX,STORAGE_DISK_SSD"
    assert _names(api.get(query, mv="1.22")) == ["middle"]


def test_required_last_value_wins_before_1_39_and_all_apply_from_1_39(api, traited):
    query = "/resource_providers?required=HW_CPU_X86_SGX&required=STORAGE_DISK_SSD"
    assert _names(api.get(query, mv="1.38")) == ["left", "middle"]
    query = "/resource_providers?required=HW_CPU_X86_AVX&required=STORAGE_DISK_SSD"
    assert _names(api.get(query, mv="1.39")) == []


def test_required_any_of_from_1_39(api, traited):
    query = "/resource_providers?required=in:HW_CPU_X86_SGX,HW_CPU_X86_AVX"
    response = api.get(query, mv="1.38")
    assert response.status_code == 400
    assert ("The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since microversion "
            "1.39.") in _error(response)
    assert _names(api.get(query, mv="1.39")) == ["left", "right"]
    query += "&required=!MISC_SHARES_VIA_AGGREGATE,STORAGE_DISK_SSD"
    assert _names(api.get(query, mv="1.39")) == ["left"]


@pytest.mark.parametrize(
    "value, mv, fragment",
    [
        ("", "1.22", "of the form: HW_CPU_X86_VMX,!CUSTOM_MAGIC."),
        ("", "1.21", "of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC."),
        ("STORAGE_DISK_SSD,,HW_CPU_X86_AVX", "1.22", "of the form: HW_CPU_X86_VMX,!CUSTOM_MAGIC."),
        ("STORAGE_DISK_SSD,BOGUS_TRAIT", "1.22", "No such trait(s): BOGUS_TRAIT."),
        ("!BOGUS_TRAIT", "1.22", "No such trait(s): BOGUS_TRAIT."),
        ("in:HW_CPU_X86_AVX,!STORAGE_DISK_SSD", "1.39", "Invalid query string parameters"),
        ("in:HW_CPU_X86_AVX,", "1.39", "Invalid query string parameters"),
    ],
)
def test_required_errors(api, traited, value, mv, fragment):
    response = api.get(f"/resource_providers?required={value}", mv=mv)
    assert response.status_code == 400
    assert fragment in _error(response)


def test_filters_combine_with_and(api, traited):
    left, middle, _ = traited
    InventoryFactory(resource_provider=middle, resource_class=resource_class("IPV4_ADDRESS"),
                     total=253)
    query = "/resource_providers?required=STORAGE_DISK_SSD&resources=IPV4_ADDRESS:10"
    assert _names(api.get(query, mv="1.18")) == ["middle"]
    query = f"/resource_providers?required=STORAGE_DISK_SSD&in_tree={left.uuid}"
    assert _names(api.get(query, mv="1.18")) == ["left"]
