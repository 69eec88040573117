"""A forbidden trait in the unnumbered group on nested trees (1.22+).

The trait is judged on the providers that give the group's resources; a
compute node without the trait is a candidate whatever its children have.
"""
import pytest

from providers.models import ProviderTrait
from tests.factories import trait
from tests.support.world import uuids_in

URL = "/allocation_candidates"


@pytest.fixture
def host(world):
    w = world
    w.cn = w.provider("cn", inventory={"VCPU": 8, "MEMORY_MB": 4096})
    w.nic = w.provider("nic", parent=w.cn, inventory={"NET_BW_EGR_KILOBIT_PER_SEC": 1000},
                       traits=["CUSTOM_PHYSNET"])
    w.numa = w.provider("numa", parent=w.cn)
    trait("CUSTOM_GOLD")  # known, held by no provider
    return w


@pytest.mark.parametrize("mv", ["1.22", "1.29", "1.39"])
def test_root_without_the_trait_is_returned(api, host, mv):
    body = api.get(URL + "?resources=VCPU:1&required=!CUSTOM_GOLD", mv=mv).json()
    assert uuids_in(body) == {frozenset([host.cn.uuid])}


@pytest.mark.parametrize("mv", ["1.29", "1.39"])
def test_child_with_the_trait_that_gives_nothing_does_not_exclude_the_root(api, host, mv):
    body = api.get(URL + "?resources=VCPU:1&required=!CUSTOM_PHYSNET", mv=mv).json()
    assert uuids_in(body) == {frozenset([host.cn.uuid])}


def test_provider_with_the_trait_giving_resources_is_excluded(api, host):
    query = URL + "?resources=VCPU:1,NET_BW_EGR_KILOBIT_PER_SEC:10&required=!CUSTOM_PHYSNET"
    body = api.get(query, mv="1.39").json()
    assert body["allocation_requests"] == []


def test_root_with_the_trait_is_excluded(api, host):
    ProviderTrait.objects.create(resource_provider=host.cn, trait=trait("CUSTOM_GOLD"))
    body = api.get(URL + "?resources=VCPU:1&required=!CUSTOM_GOLD", mv="1.39").json()
    assert body["allocation_requests"] == []


@pytest.fixture
def numa(world):
    """cn (DISK_GB) -> numa0 (VCPU, HW_NUMA_ROOT), numa1 (VCPU, HW_NUMA_ROOT, AVX2)."""
    w = world
    w.cn = w.provider("cn", inventory={"DISK_GB": 100})
    w.n0 = w.provider("numa0", parent=w.cn, inventory={"VCPU": 4}, traits=["HW_NUMA_ROOT"])
    w.n1 = w.provider("numa1", parent=w.cn, inventory={"VCPU": 4},
                      traits=["HW_NUMA_ROOT", "HW_CPU_X86_AVX2"])
    return w


def test_root_giving_the_resources_is_returned_though_its_children_have_the_trait(api, numa):
    body = api.get(URL + "?resources=DISK_GB:10&required=!HW_NUMA_ROOT", mv="1.39").json()
    assert uuids_in(body) == {frozenset([numa.cn.uuid])}


def test_the_child_with_the_trait_is_skipped_and_its_sibling_used(api, numa):
    body = api.get(URL + "?resources=VCPU:1,DISK_GB:10&required=!HW_CPU_X86_AVX2",
                   mv="1.39").json()
    assert uuids_in(body) == {frozenset([numa.cn.uuid, numa.n0.uuid])}


def test_root_without_inventory_and_children_giving_everything(api, world):
    cn = world.provider("cn")
    n0 = world.provider("numa0", parent=cn, inventory={"VCPU": 4})
    n1 = world.provider("numa1", parent=cn, inventory={"VCPU": 4}, traits=["CUSTOM_GOLD"])
    body = api.get(URL + "?resources=VCPU:1&required=!CUSTOM_GOLD", mv="1.39").json()
    assert uuids_in(body) == {frozenset([n0.uuid])}
    assert cn.uuid in body["provider_summaries"]


def test_sharing_storage_and_a_forbidden_trait(api, world):
    agg = world.aggregate()
    cn = world.provider("cn", inventory={"VCPU": 8}, aggs=[agg])
    world.provider("numa", parent=cn)
    ss = world.provider("ss", inventory={"DISK_GB": 100}, traits=["MISC_SHARES_VIA_AGGREGATE"],
                        aggs=[agg])
    trait("CUSTOM_GOLD")
    body = api.get(URL + "?resources=VCPU:1,DISK_GB:10&required=!CUSTOM_GOLD", mv="1.39").json()
    assert uuids_in(body) == {frozenset([cn.uuid, ss.uuid])}
