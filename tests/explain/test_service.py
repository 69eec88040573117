"""candidates.explain: which group and constraint removed which providers."""
import pytest

from candidates.engine import find_candidates
from candidates.explain import explain
from candidates.query import parse_query
from placement_core import errors
from providers.models import ResourceProvider

pytestmark = pytest.mark.django_db


def _explain(text):
    return explain(parse_query(text))


def _kinds(group):
    return {(s.kind, s.resource_class): [r.name for r in s.removed] for s in group.steps}


def test_max_unit_is_named_with_the_numbers(world):
    world.provider("small", inventory={"VCPU": {"total": 8, "max_unit": 4}})
    result = _explain("resources=VCPU:6")
    assert result.candidates == 0
    step = next(s for s in result.groups[0].steps if s.kind == "max_unit")
    assert [r.name for r in step.removed] == ["small"]
    assert step.removed[0].numbers == {"asked": 6, "max_unit": 4}
    assert result.groups[0].closest[0].name == "small"
    assert "max_unit 4" in result.groups[0].closest[0].failed[0]


def test_capacity_min_unit_and_step_size_are_told_apart(world):
    world.provider("busy", inventory={"VCPU": {"total": 4, "max_unit": 16}})
    world.allocate(world.provider("busy2", inventory={"VCPU": 8}), "VCPU", 6)
    world.provider("coarse", inventory={"VCPU": {"total": 8, "step_size": 4}})
    world.provider("big-min", inventory={"VCPU": {"total": 16, "min_unit": 8}})
    world.provider("ok", inventory={"VCPU": 8})
    result = _explain("resources=VCPU:6")
    kinds = _kinds(result.groups[0])
    assert kinds[("capacity", "VCPU")] == ["busy", "busy2"]
    assert kinds[("step_size", "VCPU")] == ["coarse"]
    assert kinds[("min_unit", "VCPU")] == ["big-min"]
    capacity = next(s for s in result.groups[0].steps if s.kind == "capacity")
    assert {r.name: r.numbers["free"] for r in capacity.removed} == {"busy": 4, "busy2": 2}
    assert result.candidates == 1


def test_multi_class_unsuffixed_group_not_met_by_providers_each_lacking_one(world):
    world.provider("cpu-only", inventory={"VCPU": 8})
    world.provider("ram-only", inventory={"MEMORY_MB": 4096})
    result = _explain("resources=VCPU:2,MEMORY_MB:1024")
    group = result.groups[0]
    assert result.candidates == 0
    assert group.trees_left == 0
    assert group.providers_left == {"MEMORY_MB": 1, "VCPU": 1}
    lost = {r.name: r.numbers["classes"] for s in group.tree_steps for r in s.removed}
    assert lost == {"cpu-only": ["MEMORY_MB"], "ram-only": ["VCPU"]}
    assert "no tree can meet the unsuffixed group" in result.verdict


def test_multi_class_group_spread_over_a_nested_tree(world):
    cn = world.provider("cn", inventory={"DISK_GB": 100})
    world.provider("numa0", parent=cn, inventory={"VCPU": 4})
    world.provider("lonely", inventory={"VCPU": 4})
    result = _explain("resources=VCPU:2,DISK_GB:10")
    assert result.candidates == 1
    group = result.groups[0]
    assert group.trees_left == 1
    assert [r.name for s in group.tree_steps for r in s.removed] == ["lonely"]


def test_required_traits_judged_on_the_providers_used_together(world):
    cn = world.provider("cn", inventory={"DISK_GB": 100})
    world.provider("numa0", parent=cn, inventory={"VCPU": 4})
    result = _explain("resources=VCPU:2,DISK_GB:10&required=HW_CPU_X86_AVX2")
    group = result.groups[0]
    assert result.candidates == 0
    assert [(s.kind, [r.name for r in s.removed]) for s in group.tree_steps] == [
        ("required", ["cn"])]


def test_granular_groups_per_provider_traits_and_isolate(world):
    cn = world.provider("cn")
    world.provider("numa0", parent=cn, inventory={"VCPU": 4}, traits=["HW_CPU_X86_AVX2"])
    world.provider("numa1", parent=cn, inventory={"VCPU": 4})
    result = _explain("resources1=VCPU:1&required1=HW_CPU_X86_AVX2"
                      "&resources2=VCPU:1&required2=HW_CPU_X86_AVX2&group_policy=isolate")
    assert result.candidates == 0
    g1 = result.groups[0]
    assert _kinds(g1)[("required", None)] == ["numa1"]
    assert g1.providers_left == {"": 1}
    assert [(s.kind, [r.name for r in s.removed]) for s in result.steps] == [
        ("group_policy", ["cn"])]
    assert _explain(result.query.replace("isolate", "none")).candidates == 1


def test_groups_together_exceed_one_providers_capacity(world):
    world.provider("cn", inventory={"VCPU": 4})
    result = _explain("resources1=VCPU:3&resources2=VCPU:3&group_policy=none")
    assert result.candidates == 0
    assert [s.kind for s in result.steps] == ["combined_capacity"]


def test_forbidden_member_of_in_tree_and_root_required(world):
    agg = world.aggregate()
    a = world.provider("a", inventory={"VCPU": 4}, traits=["CUSTOM_BAD"])
    b = world.provider("b", inventory={"VCPU": 4})
    c = world.provider("c", inventory={"VCPU": 4}, aggs=[agg])
    d = world.provider("d", inventory={"VCPU": 4}, aggs=[agg], traits=["CUSTOM_ROOT"])
    result = _explain(f"resources=VCPU:1&required=!CUSTOM_BAD&member_of={agg.uuid}")
    kinds = _kinds(result.groups[0])
    assert kinds[("forbidden", "VCPU")] == ["a"]
    assert kinds[("member_of", "VCPU")] == ["b"]
    assert result.candidates == 2
    result = _explain(f"resources=VCPU:1&in_tree={c.uuid}")
    assert sorted(_kinds(result.groups[0])[("in_tree", "VCPU")]) == ["a", "b", "d"]
    result = _explain("resources=VCPU:1&root_required=CUSTOM_ROOT")
    assert result.steps[0].kind == "root_required"
    assert sorted(r.name for r in result.steps[0].removed) == ["a", "b", "c"]
    assert result.candidates == 1 and d


def test_sharing_provider_through_an_aggregate(world):
    agg = world.aggregate()
    world.provider("cn", inventory={"VCPU": 4}, aggs=[agg])
    world.provider("pool", inventory={"DISK_GB": 1000}, aggs=[agg],
                   traits=["MISC_SHARES_VIA_AGGREGATE"])
    world.provider("outside", inventory={"VCPU": 4})
    result = _explain("resources=VCPU:1,DISK_GB:100")
    assert result.candidates == 1
    group = result.groups[0]
    assert group.sharing == [{"uuid": group.sharing[0]["uuid"], "name": "pool",
                              "classes": ["DISK_GB"], "trees_reached": 1}]
    lost = {r.name: r.numbers["classes"] for s in group.tree_steps for r in s.removed}
    # the pool's own tree has no VCPU: it is a tree the group cannot use either
    assert lost == {"outside": ["DISK_GB"], "pool": ["VCPU"]}


def test_sharing_provider_without_the_trait_is_not_shared(world):
    agg = world.aggregate()
    world.provider("cn", inventory={"VCPU": 4}, aggs=[agg])
    world.provider("pool", inventory={"DISK_GB": 1000}, aggs=[agg])
    result = _explain("resources=VCPU:1,DISK_GB:100")
    assert result.candidates == 0
    assert result.groups[0].sharing == []


def test_limit_is_reported(world):
    for n in range(3):
        world.provider(f"h{n}", inventory={"VCPU": 4})
    result = _explain("resources=VCPU:1&limit=1")
    assert result.candidates == 1
    assert [(s.kind, s.removed_count) for s in result.steps] == [("limit", 2)]
    from candidates.explanation import as_text

    assert "limit=1 (limit): removed 2 candidates, 1 left\n  e.g." in as_text(result)


@pytest.mark.parametrize("query, words", [
    ("", "empty"),
    ("resources=VCPU:x", "expected positive integer"),
    ("resources=NOPE:1", "No such resource class NOPE"),
    ("resources=VCPU:1&required=NOPE_TRAIT", "No such trait"),
    ("resources=VCPU:1&bogus=1", "Invalid query string parameters"),
])
def test_bad_queries_raise_the_apis_error(world, query, words):
    with pytest.raises(errors.PlacementError) as exc:
        explain(parse_query(query))
    assert words in str(exc.value)


def test_same_subtree_removes_the_tree(world):
    cn = world.provider("cn")
    numa0 = world.provider("numa0", parent=cn, inventory={"VCPU": 4})
    world.allocate(numa0, "VCPU", 4)
    world.provider("fpga0", parent=numa0, inventory={"FPGA": 1})
    world.provider("numa1", parent=cn, inventory={"VCPU": 4})
    result = _explain("resources_C=VCPU:1&resources_A=FPGA:1&group_policy=none"
                      "&same_subtree=_C,_A")
    assert result.candidates == 0
    assert [(s.kind, [r.name for r in s.removed]) for s in result.steps] == [
        ("same_subtree", ["cn"])]
    assert _kinds(result.groups[1])[("capacity", None)] == ["numa0"]  # groups sorted: _A, _C


def test_in_tree_of_an_unknown_provider(world):
    world.provider("cn", inventory={"VCPU": 4})
    result = _explain("resources=VCPU:1&in_tree=00000000-0000-0000-0000-000000000001")
    step = result.groups[0].steps[-1]
    assert step.kind == "in_tree" and step.removed[0].reason == "no provider has that uuid"
    assert result.candidates == 0


def test_text_rendering_names_groups_steps_and_closest(world):
    from candidates.explanation import as_text

    world.provider("small", inventory={"VCPU": {"total": 8, "max_unit": 4}})
    text = as_text(_explain("resources1=VCPU:6&required1=!HW_CPU_X86_AVX"))
    assert "group '1': resources1=VCPU:6&required1=!HW_CPU_X86_AVX" in text
    assert "resources1=VCPU:6 (max_unit): removed 1 providers, 0 left" in text
    closest = text.split("closest:\n")[1].splitlines()
    assert closest[0].split() == ["provider", "class", "why", "not"]
    assert closest[1].split()[:2] == ["small", "VCPU"] and "max_unit 4" in closest[1]
    assert text.rstrip().endswith("closest: small (asked 6 VCPU > max_unit 4).")


def _nested_and_shared(world):
    """Four trees, each a root with two NUMA cells, drawing disk from one of two pools."""
    pools = [world.aggregate(), world.aggregate()]
    for i, agg in enumerate(pools):
        world.provider(f"pool{i}", inventory={"DISK_GB": 500}, aggs=[agg],
                       traits=["MISC_SHARES_VIA_AGGREGATE"])
    for n in range(4):
        root = world.provider(f"cn{n}", inventory={"MEMORY_MB": 8192}, aggs=[pools[n % 2]])
        for cell in range(2):
            world.provider(f"cn{n}-numa{cell}", parent=root, inventory={"VCPU": 4})


@pytest.mark.parametrize("strategy", ["depth-first", "breadth-first"])
@pytest.mark.parametrize("limit", [1, 3, 5, 7, 100])
def test_limit_answer_is_the_engines_limited_answer(world, settings, strategy, limit):
    # The explainer searches once without the limit and keeps the first
    # `limit` requests: they must be the engine's own limited answer.
    settings.PLACEMENT_ALLOCATION_CANDIDATES_GENERATION_STRATEGY = strategy
    _nested_and_shared(world)
    query = f"resources=VCPU:1,MEMORY_MB:512,DISK_GB:10&limit={limit}"
    engine = find_candidates(parse_query(query)).allocation_requests
    # Each tree: a cell's VCPU, the root's memory and its one pool's disk.
    whole = 4 * 2
    assert len(find_candidates(parse_query(query.split("&limit")[0])).allocation_requests) == whole
    result = _explain(query)
    assert result.candidates == len(engine) == min(limit, whole)
    names = dict(ResourceProvider.objects.values_list("uuid", "name"))
    assert result.sample == [{names[u]: res["resources"] for u, res in ar.allocations.items()}
                             for ar in engine[:5]]
    removed = [(s.kind, s.removed_count, s.left) for s in result.steps]
    assert removed == ([("limit", whole - limit, limit)] if limit < whole else [])


@pytest.mark.parametrize("limit", [2, 500])
def test_limit_explained_when_the_whole_answer_is_too_much_work(world, settings, limit):
    # Three granular groups over eight cells are 8 + 64 + 512 placements:
    # more than a work limit of 500 without a limit, within it with limit=2.
    # The explainer answers as the API does and counts no removals it could
    # not search for.
    settings.PLACEMENT_CANDIDATE_WORK_LIMIT = 500
    root = world.provider("cn")
    for i in range(8):
        world.provider(f"numa{i}", parent=root, inventory={"VCPU": 8})
    query = ("resources1=VCPU:1&resources2=VCPU:1&resources3=VCPU:1&group_policy=none"
             f"&limit={limit}")
    if limit == 500:
        with pytest.raises(errors.BadRequest, match="more than 500 provider choices"):
            _explain(query)
        return
    result = _explain(query)
    assert result.candidates == 2
    assert [s.kind for s in result.steps] == []
