"""The pure-Python combiner: validity, no duplicates, bounded by the cap, pruned early.

Work is counted in placements (a group's choice put on the partial
combination), not timed: timings belong to `make bench`.
"""
from math import perm

from candidates.combiner import Choice, Problem, combine, tree_combinations


def _problem(providers, free=8, max_unit=8, isolate=(), same_subtree=(), ancestors=None):
    return Problem(
        capacity={(p, "VCPU"): (free, max_unit) for p in providers},
        isolated_groups=list(isolate),
        same_subtree=list(same_subtree),
        ancestors=ancestors or {p: frozenset([p, 0]) for p in providers},
        root_of={p: 0 for p in providers},
        sharing=frozenset(),
    )


def _choices(providers, amount=1):
    return [Choice(providers=(p,), allocs=((p, "VCPU", amount),)) for p in providers]


def test_isolate_gives_distinct_providers_without_duplicates():
    children = list(range(1, 5))
    problem = _problem(children, isolate=[True] * 3)
    results = list(tree_combinations([_choices(children)] * 3, problem))
    assert len(results) == 4 * 3 * 2
    assert len(set(results)) == len(results)
    for combination in results:
        assert len({c.providers[0] for c in combination}) == 3


def test_capacity_prunes_overcommit():
    problem = _problem([1, 2], free=1, isolate=[False, False])
    results = list(tree_combinations([_choices([1, 2])] * 2, problem))
    # each provider has room for one unit only: (1,2) and (2,1)
    assert sorted(tuple(c.providers[0] for c in r) for r in results) == [(1, 2), (2, 1)]


def test_same_subtree_needs_a_common_ancestor():
    # 10 -> 11, 10 -> 12 ; group 0 on {11, 12}, group 1 on {10}
    ancestors = {10: frozenset([10]), 11: frozenset([11, 10]), 12: frozenset([12, 10])}
    problem = _problem([10, 11, 12], isolate=[False, False, False], same_subtree=[[0, 1]],
                       ancestors=ancestors)
    results = list(tree_combinations([_choices([11, 12]), _choices([11, 12])], problem))
    # 11 and 12 are siblings: only equal picks share a subtree
    assert sorted(tuple(c.providers[0] for c in r) for r in results) == [(11, 11), (12, 12)]


def test_same_subtree_holds_whichever_group_is_above():
    # 10 -> 11, 10 -> 12: either group may take the ancestor; siblings never.
    ancestors = {10: frozenset([10]), 11: frozenset([11, 10]), 12: frozenset([12, 10])}
    problem = _problem([10, 11, 12], isolate=[False, False], same_subtree=[[0, 1]],
                       ancestors=ancestors)
    results = list(tree_combinations([_choices([10, 11, 12])] * 2, problem))
    assert sorted(tuple(c.providers[0] for c in r) for r in results) == [
        (10, 10), (10, 11), (10, 12), (11, 10), (11, 11), (12, 10), (12, 12)]


# Every partial assignment of d distinct children to the first d groups is
# placed once: sum over d of 8!/(8-d)!.  Without pruning the walk would
# place sum over d of 8**d choices (19 173 960).
PRUNED_WALK = sum(perm(8, d) for d in range(1, 9))  # 109 600


def test_eight_children_eight_groups_capped_stops_early():
    children = list(range(1, 9))
    problem = _problem(children, isolate=[True] * 8)
    results = list(combine([[_choices(children)] * 8], problem, cap=1000))
    assert len(results) == 1000
    # Lazy: at most 8 new placements per result yielded, then it stops.
    assert problem.placements <= 8 * 1000


def test_eight_children_eight_groups_uncapped_isolate_visits_only_valid_prefixes():
    children = list(range(1, 9))
    problem = _problem(children, isolate=[True] * 8)
    count = sum(1 for _ in combine([[_choices(children)] * 8], problem))
    assert count == 40320  # 8! distinct group -> provider mappings
    assert problem.placements == PRUNED_WALK


def test_capacity_bounds_group_policy_none():
    # 8 children with 1 free unit each, 8 groups of 1 unit, policy none:
    # capacity forces a permutation, pruned early, not 8**8 tries.
    children = list(range(1, 9))
    problem = _problem(children, free=1, isolate=[False] * 8)
    count = sum(1 for _ in combine([[_choices(children)] * 8], problem))
    assert count == 40320
    assert problem.placements == PRUNED_WALK


def test_breadth_first_takes_one_per_tree_in_turn():
    trees = [[_choices([root])] for root in (1, 2, 3)]
    problem = _problem([1, 2, 3], isolate=[False])
    problem.root_of = {1: 1, 2: 2, 3: 3}
    got = [combination[0].providers[0]
           for combination in combine(trees, problem, strategy="breadth-first", cap=2)]
    assert got == [1, 2]
