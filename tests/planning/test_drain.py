"""The drain what-if engine (planning.drain): verdicts, shapes, the capacity
rule, disabled hosts, sharing providers, and that it writes nothing."""
from collections import Counter

import pytest

from allocations.models import Allocation
from placement_core import errors
from planning import drain
from providers.models import ResourceProvider

pytestmark = pytest.mark.django_db

DISABLED = "COMPUTE_STATUS_DISABLED"


def _landed(result):
    """{provider name: {class: amount}} summed over every placed consumer."""
    out = {}
    for move in result.placed:
        for entry in move.to:
            for rc, n in entry["resources"].items():
                out.setdefault(entry["name"], Counter())[rc] += n
    return out


def test_flat_host_fits_elsewhere_and_usage_is_counted(world):
    a = world.provider("a", inventory={"VCPU": 8, "MEMORY_MB": 4096})
    b = world.provider("b", inventory={"VCPU": 8, "MEMORY_MB": 4096})
    c = world.provider("c", inventory={"VCPU": 4, "MEMORY_MB": 4096})
    world.consumer({a: {"VCPU": 3, "MEMORY_MB": 1024}})
    world.consumer({a: {"VCPU": 2, "MEMORY_MB": 1024}})
    world.consumer({b: {"VCPU": 2, "MEMORY_MB": 512}})
    world.consumer({c: {"VCPU": 1}})

    result = drain.drain(providers=["a"])

    assert result.fits and result.consumers == 2 and not result.not_placed
    assert [d["name"] for d in result.drained] == ["a"]
    assert result.targets == 2
    landed = _landed(result)
    # Every amount held on a lands somewhere, nothing on a itself.
    assert "a" not in landed
    assert sum(c["VCPU"] for c in landed.values()) == 5
    assert sum(c["MEMORY_MB"] for c in landed.values()) == 2048
    # The fullest list is the usage before plus what landed, counted here
    # from the database and the moves.
    before = Counter()
    for rp, rc, used in Allocation.objects.values_list(
            "resource_provider__name", "resource_class__name", "used"):
        before[(rp, rc)] += used
    for f in result.fullest_after:
        assert f["used_before"] == before[(f["name"], f["resource_class"])]
        assert f["used"] == f["used_before"] + landed.get(f["name"], {}).get(
            f["resource_class"], 0)
        assert f["name"] != "a"


def test_largest_first_packs_what_smallest_first_would_not(world):
    a = world.provider("a", inventory={"VCPU": 16})
    world.provider("b", inventory={"VCPU": 5})
    world.provider("c", inventory={"VCPU": 5})
    for n in (2, 2, 3, 3):
        world.consumer({a: {"VCPU": n}})
    result = drain.drain(providers=[a.uuid])
    assert result.fits
    assert {name: c["VCPU"] for name, c in _landed(result).items()} == {"b": 5, "c": 5}
    # The order the consumers were taken in: largest first.
    assert [m.holds[0]["resources"]["VCPU"] for m in result.placed] == [3, 3, 2, 2]


def test_does_not_fit_names_the_constraint_and_the_most_free(world):
    a = world.provider("a", inventory={"VCPU": 16})
    world.provider("b", inventory={"VCPU": {"total": 8, "max_unit": 16}})
    world.provider("c", inventory={"VCPU": {"total": 7, "max_unit": 16}})
    big = world.consumer({a: {"VCPU": 10}})
    world.consumer({a: {"VCPU": 5}})
    result = drain.drain(providers=["a"])
    assert not result.fits
    assert [m.consumer for m in result.not_placed] == [big.uuid]
    reason = result.not_placed[0].reason
    assert reason["kind"] == "capacity" and reason["resource_class"] == "VCPU"
    assert reason["trees"] == 2
    # The 10 is taken first (the largest), while b still has all its 8 free.
    assert "the most free VCPU where this shape may land is 8 on b" in reason["text"]
    assert len(result.placed) == 1


def test_reserved_and_allocation_ratio_make_the_capacity(world):
    a = world.provider("a", inventory={"VCPU": 32})
    # capacity (8 - 2) * 2.0 = 12, 4 used: 8 free.
    b = world.provider("b", inventory={"VCPU": {"total": 8, "reserved": 2,
                                                "allocation_ratio": 2.0, "max_unit": 12}})
    world.consumer({b: {"VCPU": 4}})
    world.consumer({a: {"VCPU": 8}})
    assert drain.drain(providers=["a"]).fits
    a2 = world.provider("a2", inventory={"VCPU": 32})
    nine = world.consumer({a2: {"VCPU": 9}})
    result = drain.drain(providers=["a", "a2"])
    # b has 8 free: the 9 (taken first, the largest) does not fit, the 8 does.
    assert [m.consumer for m in result.not_placed] == [nine.uuid]
    assert result.not_placed[0].reason["kind"] == "capacity"
    assert _landed(result) == {"b": {"VCPU": 8}}


@pytest.mark.parametrize("spec, amount, kind", [
    ({"total": 16, "max_unit": 2}, 4, "max_unit"),
    ({"total": 16, "min_unit": 8, "max_unit": 16}, 4, "min_unit"),
    ({"total": 16, "step_size": 3, "max_unit": 16}, 4, "step_size"),
])
def test_unit_rules_of_the_target(world, spec, amount, kind):
    a = world.provider("a", inventory={"VCPU": 16})
    world.provider("b", inventory={"VCPU": spec})
    world.consumer({a: {"VCPU": amount}})
    result = drain.drain(providers=["a"])
    assert not result.fits
    assert result.not_placed[0].reason["kind"] == kind


def test_disabled_host_is_never_a_target(world):
    a = world.provider("a", inventory={"VCPU": 8})
    world.provider("big-but-disabled", inventory={"VCPU": 64}, traits=[DISABLED])
    world.provider("small", inventory={"VCPU": {"total": 2, "max_unit": 8}})
    world.consumer({a: {"VCPU": 4}})
    result = drain.drain(providers=["a"])
    assert not result.fits and result.targets == 1
    assert result.not_placed[0].reason["kind"] == "capacity"
    assert all(f["name"] != "big-but-disabled" for f in result.fullest_after)


def test_disabled_trait_on_a_child_disables_nothing(world):
    """One rule for disabled hosts: the root's trait. b's root is enabled,
    so b-numa0 takes the PCPU whatever its own traits say."""
    a = world.provider("a", inventory={"MEMORY_MB": 1024})
    world.provider("a-numa", parent=a, inventory={"PCPU": 8})
    b = world.provider("b", inventory={"MEMORY_MB": 1024})
    world.provider("b-numa0", parent=b, inventory={"PCPU": 8}, traits=[DISABLED])
    world.consumer({a: {"MEMORY_MB": 512}, a.children.get(): {"PCPU": 4}})
    result = drain.drain(providers=["a"])
    assert result.fits
    assert _landed(result) == {"b": {"MEMORY_MB": 512}, "b-numa0": {"PCPU": 4}}


def test_child_of_a_disabled_root_is_never_a_target(world):
    a = world.provider("a", inventory={"MEMORY_MB": 1024})
    world.provider("a-numa", parent=a, inventory={"PCPU": 8})
    b = world.provider("b", inventory={"MEMORY_MB": 1024}, traits=[DISABLED])
    world.provider("b-numa0", parent=b, inventory={"PCPU": 8})
    world.consumer({a: {"MEMORY_MB": 512}, a.children.get(): {"PCPU": 4}})
    result = drain.drain(providers=["a"])
    assert not result.fits and result.targets == 0
    assert all(f["name"] not in ("b", "b-numa0") for f in result.fullest_after)


def test_shape_child_lands_on_a_child_of_the_same_kind(world):
    src = world.provider("src", inventory={"MEMORY_MB": 8192})
    numa = world.provider("src-numa0", parent=src, inventory={"PCPU": 8, "VCPU": 8})
    # A flat host with plenty of everything: not the same shape.
    world.provider("flat", inventory={"MEMORY_MB": 65536, "PCPU": 64, "VCPU": 64})
    # A nested host whose child has another set of classes.
    other = world.provider("other", inventory={"MEMORY_MB": 65536})
    world.provider("other-numa0", parent=other, inventory={"PCPU": 64})
    world.consumer({src: {"MEMORY_MB": 2048}, numa: {"PCPU": 2}})
    result = drain.drain(trees=["src-numa0"])  # its whole tree
    assert not result.fits
    assert result.not_placed[0].reason["kind"] in {"no_inventory", "no_child_of_kind"}
    dst = world.provider("dst", inventory={"MEMORY_MB": 4096})
    world.provider("dst-numa0", parent=dst, inventory={"PCPU": 4, "VCPU": 4})
    result = drain.drain(trees=["src"])
    assert result.fits
    assert _landed(result) == {"dst": {"MEMORY_MB": 2048}, "dst-numa0": {"PCPU": 2}}


def test_two_source_children_land_on_two_target_children(world):
    src = world.provider("src", inventory={"MEMORY_MB": 8192})
    n0 = world.provider("src-n0", parent=src, inventory={"PCPU": 8})
    n1 = world.provider("src-n1", parent=src, inventory={"PCPU": 8})
    dst = world.provider("dst", inventory={"MEMORY_MB": 8192})
    world.provider("dst-n0", parent=dst, inventory={"PCPU": 16})
    world.consumer({src: {"MEMORY_MB": 1024}, n0: {"PCPU": 2}, n1: {"PCPU": 2}})
    # One child with room for both is not enough: the shape has two cells.
    assert not drain.drain(providers=["src"]).fits
    world.provider("dst-n1", parent=dst, inventory={"PCPU": 2})
    result = drain.drain(providers=["src"])
    assert result.fits
    assert _landed(result) == {"dst": {"MEMORY_MB": 1024}, "dst-n0": {"PCPU": 2},
                               "dst-n1": {"PCPU": 2}}


def test_child_custom_traits_follow_the_consumer(world):
    src = world.provider("src", inventory={"VCPU": 8})
    nic = world.provider("src-nic", parent=src, inventory={"SRIOV_NET_VF": 8},
                         traits=["CUSTOM_PHYSNET_A"])
    wrong = world.provider("wrong", inventory={"VCPU": 8})
    world.provider("wrong-nic", parent=wrong, inventory={"SRIOV_NET_VF": 8},
                   traits=["CUSTOM_PHYSNET_B"])
    world.consumer({src: {"VCPU": 1}, nic: {"SRIOV_NET_VF": 1}})
    result = drain.drain(providers=["src"])
    assert not result.fits
    right = world.provider("right", inventory={"VCPU": 8})
    world.provider("right-nic", parent=right, inventory={"SRIOV_NET_VF": 8},
                   traits=["CUSTOM_PHYSNET_A", "CUSTOM_OTHER"])
    result = drain.drain(providers=["src"])
    assert result.fits and set(_landed(result)) == {"right", "right-nic"}


def test_draining_a_child_moves_the_consumer_and_its_tree_may_take_it_back(world):
    host = world.provider("host", inventory={"VCPU": 8})
    nic0 = world.provider("host-nic0", parent=host, inventory={"SRIOV_NET_VF": 4})
    world.provider("host-nic1", parent=host, inventory={"SRIOV_NET_VF": 4})
    world.consumer({host: {"VCPU": 6}, nic0: {"SRIOV_NET_VF": 1}})
    result = drain.drain(providers=["host-nic0"])
    # Its own VCPU is released first, so the host takes it back on nic1.
    assert result.fits
    assert _landed(result) == {"host": {"VCPU": 6}, "host-nic1": {"SRIOV_NET_VF": 1}}


def test_sharing_provider_kept_must_be_reachable(world):
    agg, other_agg = world.aggregate(), world.aggregate()
    pool = world.provider("pool", inventory={"DISK_GB": 1000},
                          traits=["MISC_SHARES_VIA_AGGREGATE"], aggs=[agg])
    a = world.provider("a", inventory={"VCPU": 8}, aggs=[agg])
    world.provider("far", inventory={"VCPU": 64}, aggs=[other_agg])
    world.consumer({a: {"VCPU": 2}, pool: {"DISK_GB": 100}})
    result = drain.drain(providers=["a"])
    assert not result.fits
    assert result.not_placed[0].reason["kind"] == "sharing_unreachable"
    world.provider("near", inventory={"VCPU": 8}, aggs=[agg])
    result = drain.drain(providers=["a"])
    assert result.fits
    # The pool's DISK_GB stays where it is; only the VCPU moves.
    assert _landed(result) == {"near": {"VCPU": 2}}


def test_drained_sharing_provider_moves_to_another_reachable_one(world):
    agg = world.aggregate()
    pool = world.provider("pool", inventory={"DISK_GB": 1000},
                          traits=["MISC_SHARES_VIA_AGGREGATE"], aggs=[agg])
    world.provider("pool2", inventory={"DISK_GB": {"total": 150, "max_unit": 150}},
                   traits=["MISC_SHARES_VIA_AGGREGATE"], aggs=[agg])
    a = world.provider("a", inventory={"VCPU": 8}, aggs=[agg])
    world.consumer({a: {"VCPU": 2}, pool: {"DISK_GB": 100}})
    world.consumer({a: {"VCPU": 2}, pool: {"DISK_GB": 100}})
    result = drain.drain(providers=["pool"])
    # The compute part stays on a; one disk fits on pool2, the second not.
    assert len(result.placed) == 1 and len(result.not_placed) == 1
    assert _landed(result) == {"pool2": {"DISK_GB": 100}}
    assert result.not_placed[0].reason["kind"] == "capacity"


def test_aggregate_and_required_traits_and_target_aggregate(world):
    rack = world.aggregate()
    spare = world.aggregate()
    r1 = world.provider("r1", inventory={"VCPU": 8}, aggs=[rack])
    r2 = world.provider("r2", inventory={"VCPU": 8}, aggs=[rack])
    world.provider("plain", inventory={"VCPU": 64})
    world.provider("avx", inventory={"VCPU": 8}, traits=["HW_CPU_X86_AVX2"], aggs=[spare])
    world.consumer({r1: {"VCPU": 4}})
    world.consumer({r2: {"VCPU": 4}})
    result = drain.drain(aggregate=rack.uuid)
    assert {d["name"] for d in result.drained} == {"r1", "r2"} and result.fits
    result = drain.drain(aggregate=rack.uuid, required=["HW_CPU_X86_AVX2"])
    assert result.fits and set(_landed(result)) == {"avx"}
    result = drain.drain(aggregate=rack.uuid, target_aggregate=spare.uuid)
    assert result.fits and set(_landed(result)) == {"avx"}
    world.consumer({r1: {"VCPU": 4}})
    result = drain.drain(aggregate=rack.uuid, required=["HW_CPU_X86_AVX2"])
    assert not result.fits and result.not_placed[0].reason["kind"] == "capacity"
    # A trait no tree has: no target at all.
    result = drain.drain(providers=["r1"], required=["HW_CPU_X86_AVX512F"])
    assert result.targets == 0 and result.not_placed[0].reason["kind"] == "no_target"


def test_nothing_to_receive(world):
    a = world.provider("a", inventory={"VCPU": 8})
    world.consumer({a: {"VCPU": 1}})
    result = drain.drain(providers=["a"])
    assert not result.fits and result.targets == 0
    assert result.not_placed[0].reason["kind"] == "no_target"


def test_a_host_without_consumers_fits_trivially(world):
    world.provider("empty", inventory={"VCPU": 8})
    result = drain.drain(providers=["empty"])
    assert result.fits and result.consumers == 0


@pytest.mark.parametrize("kwargs", [
    {}, {"providers": ["nope"]}, {"trees": ["nope"]}, {"aggregate": "not-a-uuid"},
    {"aggregate": "2b7cbd33-6e2f-4c4b-9d1b-1d9b6bde3a11"},
    {"providers": ["a"], "target_aggregate": "x"},
])
def test_bad_input_is_a_bad_request(world, kwargs):
    world.provider("a", inventory={"VCPU": 8})
    with pytest.raises(errors.BadRequest):
        drain.drain(**kwargs)


def test_writes_nothing(world):
    a = world.provider("a", inventory={"VCPU": 8})
    world.provider("b", inventory={"VCPU": 8})
    world.consumer({a: {"VCPU": 4}})
    before = (list(Allocation.objects.values_list("resource_provider_id", "used")),
              list(ResourceProvider.objects.values_list("generation", "updated_at")))
    assert drain.drain(providers=["a"]).fits
    after = (list(Allocation.objects.values_list("resource_provider_id", "used")),
             list(ResourceProvider.objects.values_list("generation", "updated_at")))
    assert before == after


def test_a_fixed_number_of_statements(world, django_assert_max_num_queries):
    agg = world.aggregate()
    for i in range(6):
        host = world.provider(f"h{i}", inventory={"VCPU": 16, "MEMORY_MB": 8192}, aggs=[agg])
        numa = world.provider(f"h{i}-numa", parent=host, inventory={"PCPU": 8})
        world.consumer({host: {"VCPU": 2, "MEMORY_MB": 1024}, numa: {"PCPU": 1}})
    with django_assert_max_num_queries(6):
        assert drain.drain(aggregate=agg.uuid).not_placed  # every host drained
