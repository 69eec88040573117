"""Explain's verdicts come with the right reasons: max_unit (not a missing
class) at tree level, numbered groups' counts, same_subtree's wording, and
"closest" ordered by how close, never a disabled host."""
import pytest

from candidates.explain import explain
from candidates.explanation import as_text
from candidates.query import parse_query

pytestmark = pytest.mark.django_db


def _explain(text):
    return explain(parse_query(text))


def test_tree_step_names_max_unit_not_a_missing_class(world):
    cn = world.provider("cn1", inventory={"MEMORY_MB": 4096})
    world.provider("cn1-numa0", parent=cn, inventory={"VCPU": {"total": 64, "max_unit": 2}})
    result = _explain("resources=VCPU:6,MEMORY_MB:1024")
    assert result.candidates == 0
    [tree_step] = result.groups[0].tree_steps
    assert tree_step.kind == "max_unit" and tree_step.resource_class == "VCPU"
    assert [r.name for r in tree_step.removed] == ["cn1"]
    reason = tree_step.removed[0].reason
    assert "max_unit 2" in reason and "cn1-numa0" in reason
    assert "has no" not in reason and "can give VCPU" not in as_text(result).replace(
        "can give VCPU:6", "")


def test_tree_step_still_says_missing_when_no_provider_has_the_class(world):
    cn = world.provider("cn1", inventory={"MEMORY_MB": 4096})
    world.provider("cn1-numa0", parent=cn, inventory={"PCPU": 8})
    world.provider("cn2", inventory={"VCPU": 8})
    result = _explain("resources=VCPU:2,MEMORY_MB:1024")
    tree_step = next(s for s in result.groups[0].tree_steps if s.resource_class == "VCPU")
    assert tree_step.kind == "resource_class_missing"
    assert [r.name for r in tree_step.removed] == ["cn1"]


def test_numbered_group_removes_a_provider_lacking_both_classes_at_the_first_step(world):
    # cpu-only first: the MEMORY_MB step comes first, and "nic" lacks that too.
    world.provider("cpu-only", inventory={"VCPU": 8})
    world.provider("mem-only", inventory={"MEMORY_MB": 4096})
    world.provider("nic", inventory={"SRIOV_NET_VF": 4})
    world.provider("both", inventory={"VCPU": 8, "MEMORY_MB": 4096})
    group = _explain("resources1=VCPU:1,MEMORY_MB:1024").groups[0]
    removed_so_far, left = set(), 4
    for step in group.steps:
        names = {r.name for r in step.removed}
        assert not names & removed_so_far
        removed_so_far |= names
        left -= step.removed_count
        assert step.left == left
    # The first step removes every provider that fails it, "nic" included.
    assert "nic" in {r.name for r in group.steps[0].removed}
    assert removed_so_far == {"mem-only", "cpu-only", "nic"}
    assert group.providers_left[""] == 1


def test_same_subtree_wording_when_the_providers_share_a_root(world):
    cn = world.provider("cn1")
    world.provider("numa0", parent=cn, inventory={"VCPU": 8})
    world.provider("nic0", parent=cn, inventory={"SRIOV_NET_VF": 4})
    result = _explain("resources_A=VCPU:1&resources_B=SRIOV_NET_VF:1"
                      "&same_subtree=_A,_B&group_policy=none")
    assert result.candidates == 0
    step = next(s for s in result.steps if s.kind == "same_subtree")
    reason = step.removed[0].reason
    assert "never under one common ancestor" not in reason
    assert "cn1" in reason  # they do share the root
    assert "ancestor" in reason and "numa0" in reason and "nic0" in reason


def test_closest_is_ordered_by_how_close_and_never_disabled(world):
    # All fail one constraint, capacity: 'a-far' is 60 short, 'z-near' 1
    # short, 'm-off' 0 short but disabled (its root carries the trait).
    world.provider("a-far", inventory={"VCPU": 8})
    world.allocate(world.provider("z-near", inventory={"VCPU": 64}), "VCPU", 1)
    off = world.provider("m-off-host", traits=["COMPUTE_STATUS_DISABLED"])
    world.allocate(world.provider("m-off", parent=off, inventory={"VCPU": 64}), "VCPU", 1)
    world.provider("b-mid", inventory={"VCPU": 40})
    result = _explain("resources=VCPU:64")
    closest = [c.name for c in result.groups[0].closest]
    assert "m-off" not in closest and "m-off-host" not in closest
    assert closest[:3] == ["z-near", "b-mid", "a-far"]
    assert "m-off" not in result.verdict and "z-near" in result.verdict
