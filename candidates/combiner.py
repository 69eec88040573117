"""Combine per-group provider choices into allocation requests (pure Python).

The engine (``candidates.engine``) works out, for every provider tree
(identified by its root, the *anchor*) and every request group, the list of
ways that group alone can be satisfied there: a :class:`Choice`.  This module
picks one choice per group for a tree, keeping only combinations that are
valid as a whole:

- capacity: what all groups take from one (provider, class) fits the free
  capacity and the max_unit of that inventory;
- ``group_policy=isolate``: suffixed groups use pairwise different providers;
- ``same_subtree``: among the providers of the named groups, one is an
  ancestor (or the same) of all the others;
- before 1.29 (not nested-aware) a request may not use two providers of one
  tree.

The search is a depth-first walk over the groups (fewest choices first), so a
partial combination that already breaks capacity, isolation or a completed
``same_subtree`` constraint is abandoned with all its extensions.  Results
are produced lazily, tree by tree (``depth-first``) or one per tree in turn
(``breadth-first``), so the caller stops the walk at the cap and memory stays
bounded by it.  Every combination is visited once, so no duplicates are made;
the only repeats possible are requests served wholly by sharing providers,
which several trees can reach, and those are filtered on the way out.
"""
from dataclasses import dataclass
from functools import partial
from itertools import chain, islice
from typing import Iterable, Iterator, NamedTuple, Sequence


class Choice(NamedTuple):
    """One way to satisfy one request group.

    ``providers``: the providers the group maps to (sorted ids; for a
    suffixed group exactly one), every provider of ``allocs`` among them
    (the summaries count on it).  ``allocs``: ``(provider, class, amount)``
    triples (empty for a resourceless group), at most one per (provider,
    class), each fitting that inventory on its own (the engine offers no
    other): only what several groups take together is left to check.

    A named tuple rather than a frozen dataclass: a large answer makes tens
    of thousands of these, and a tuple is several times cheaper to build.
    """

    providers: tuple
    allocs: tuple


# Choice((providers, allocs)) without the Python call of the named tuple's
# own __new__: the same tuple, built in C (a nested answer makes thousands).
new_choice = partial(tuple.__new__, Choice)


@dataclass
class Problem:
    """Everything the combiner needs beyond the choices themselves."""

    # (provider id, class id) -> (free capacity, max_unit)
    capacity: dict
    # per group index: True when the group takes part in isolation
    isolated_groups: Sequence[bool]
    # lists of group indexes bound by same_subtree
    same_subtree: Sequence[Sequence[int]]
    # provider id -> frozenset of its ancestors, itself included
    ancestors: dict
    # provider id -> root id
    root_of: dict
    # ids of sharing providers; a limited search adds to it as it loads the
    # trees they reach, so it is read afresh for every combination
    sharing: set
    nested_aware: bool = True
    # Whether two groups can take from one (provider, class): False when no
    # resource class is asked by two groups. Then what each choice fits on
    # its own (see Choice) fits together, and the walk keeps no account of
    # the capacity used (the nested bench: three groups of distinct classes).
    classes_shared: bool = True
    # Work done so far: how many times a group's choice was placed on the
    # partial combination (tests bound it; the benchmark reports it).
    placements: int = 0
    # Past this many placements the walk stops with TooMuchWork (-1: never).
    max_placements: int = -1


class TooMuchWork(Exception):
    """The walk went past ``Problem.max_placements``."""


def _count_placement(problem: Problem) -> None:
    problem.placements += 1
    if 0 <= problem.max_placements < problem.placements:
        raise TooMuchWork(problem.placements)


def _same_subtree_ok(providers, ancestors):
    """True when one of ``providers`` is an ancestor-or-self of every other.

    Loops rather than ``all()`` over a generator: this runs once per
    placement that completes a same_subtree set (thousands a nested answer),
    and a generator a time costs more than the test itself."""
    for top in providers:
        for other in providers:
            if top not in ancestors[other]:
                break
        else:
            return True
    return False


def tree_combinations(choices: Sequence[Sequence[Choice]], problem: Problem,
                      plans: dict | None = None) -> Iterator[tuple]:
    """The valid combinations (a tuple: one Choice per group) for one tree,
    as the walk finds them.

    ``plans``: the walk plans (:func:`_plan`) already worked out, by the
    number of choices of each group, to reuse across the trees of one
    search (most trees of a cloud have the same shape).

    A function returning the walk rather than a generator around it: one
    generator fewer a tree, and one step fewer a combination."""
    count = len(choices)
    if count == 0:
        return iter(())
    for options in choices:
        if not options:
            return iter(())
    if count == 1 and not any(problem.same_subtree):
        # One group, nothing to isolate from or to check across groups: each
        # choice fits on its own (see Choice), so each is a combination.
        # (Checked before the walk's set-up: a flat cloud takes this way once
        # a tree.)
        return _each(choices[0], problem)
    shape = tuple([len(options) for options in choices])
    plan = plans.get(shape) if plans is not None else None
    if plan is None:
        plan = _plan(shape, problem.same_subtree)
        if plans is not None:
            plans[shape] = plan
    return _walk(_Walk(choices, problem, *plan), 0)


def _each(options: Sequence[Choice], problem: Problem) -> Iterator[tuple]:
    for choice in options:
        _count_placement(problem)
        yield (choice,)


def _plan(shape: tuple, same_subtree) -> tuple:
    """(the groups in walk order, fewest choices first; per depth, the
    same_subtree constraints checked there: as soon as their last group is
    placed) for groups with ``shape`` choices each."""
    count = len(shape)
    order = sorted(range(count), key=shape.__getitem__)
    depth_of = {group: depth for depth, group in enumerate(order)}
    checks_at = [[] for _ in range(count)]
    for members in same_subtree:
        if members:
            checks_at[max(depth_of[m] for m in members)].append(tuple(members))
    return order, checks_at


class _Walk:
    """The state of one tree's depth-first walk.

    Kept in an object passed down rather than in a closure: a nested
    generator function that calls itself is a reference cycle (function ->
    closure cell -> function), and that cycle would keep the tree's choices,
    the Problem and through it the whole search context alive until the
    cyclic collector ran. On the nested bench that was 1,000 such cycles
    per request and about 70 ms of collection after each one.
    """

    __slots__ = ("choices", "problem", "order", "checks_at", "count", "used",
                 "isolated_taken", "picked")

    def __init__(self, choices, problem, order, checks_at):
        self.choices = choices
        self.problem = problem
        self.order = order
        self.checks_at = checks_at
        self.count = len(choices)
        self.used = {}
        self.isolated_taken = set()
        self.picked = [None] * len(choices)


def _walk(state: _Walk, depth: int) -> Iterator[tuple]:
    picked = state.picked
    problem = state.problem
    capacity = problem.capacity
    used = state.used
    isolated_taken = state.isolated_taken
    group = state.order[depth]
    isolate = problem.isolated_groups[group]
    checks = state.checks_at[depth]
    shared = problem.classes_shared
    # The last group's choice is yielded here rather than one level down (a
    # generator a candidate fewer), and needs no bookkeeping: nothing is
    # placed after it.
    last = depth + 1 == state.count
    for choice in state.choices[group]:
        if isolate and choice.providers and choice.providers[0] in isolated_taken:
            continue
        if shared:
            fits = True
            for provider, klass, amount in choice.allocs:
                free, max_unit = capacity[(provider, klass)]
                total = used.get((provider, klass), 0) + amount
                if total > free or total > max_unit:
                    fits = False
                    break
            if not fits:
                continue
        picked[group] = choice
        if checks and not _checks_ok(checks, picked, problem.ancestors):
            continue
        _count_placement(problem)
        if last:
            yield tuple(picked)
            continue
        if shared:
            for provider, klass, amount in choice.allocs:
                used[(provider, klass)] = used.get((provider, klass), 0) + amount
        if isolate and choice.providers:
            isolated_taken.add(choice.providers[0])
        yield from _walk(state, depth + 1)
        if isolate and choice.providers:
            isolated_taken.discard(choice.providers[0])
        if shared:
            for provider, klass, amount in choice.allocs:
                used[(provider, klass)] -= amount
    picked[group] = None


def _checks_ok(checks, picked, ancestors) -> bool:
    """The same_subtree constraints completed at this depth hold."""
    for members in checks:
        if len(members) == 2:
            first, second = picked[members[0]].providers, picked[members[1]].providers
            if len(first) == 1 and len(second) == 1:
                # Two suffixed groups (the usual constraint): one provider
                # each, and one of them above the other or the same. (A parent
                # cycle is still found: the second's ancestors are always
                # worked out, and the first's are among them or worked out.)
                if first[0] in ancestors[second[0]] or second[0] in ancestors[first[0]]:
                    continue
                return False
        chosen = set()
        for member in members:
            chosen.update(picked[member].providers)
        if not _same_subtree_ok(chosen, ancestors):
            return False
    return True


def _providers_of(combination):
    return {p for choice in combination for p in choice.providers}


def _allocated_providers(combination):
    return {provider for choice in combination for provider, _, _ in choice.allocs}


def combine(
    trees: Iterable[Sequence[Sequence[Choice]]],
    problem: Problem,
    *,
    strategy: str = "depth-first",
    cap: int = -1,
) -> Iterator[tuple]:
    """The valid combinations over all trees, at most ``cap`` (-1: all), as
    they are walked.

    ``trees``: each tree's per-group choice lists, in the order the trees
    are to be tried.
    """
    seen_shared = set()
    root_of = problem.root_of
    sharing = problem.sharing

    def valid(combination):
        if not problem.nested_aware:
            allocated = _allocated_providers(combination)
            if len({root_of[p] for p in allocated}) != len(allocated):
                return False
        if not sharing:
            return True
        members = _providers_of(combination)
        if members and members <= sharing:
            key = tuple(combination)
            if key in seen_shared:
                return False
            seen_shared.add(key)
        return True

    nested_aware = problem.nested_aware
    plans = {}

    def per_tree(choices):
        combinations = tree_combinations(choices, problem, plans)
        # Nothing to check across a combination (the usual case): no call
        # for each. (``sharing`` is read as each tree comes: a limited
        # search adds to it as it loads the trees, never within one.)
        if nested_aware and not sharing:
            return combinations
        return filter(valid, combinations)

    if strategy == "breadth-first":
        stream = _round_robin([per_tree(choices) for choices in trees])
    else:
        stream = chain.from_iterable(per_tree(choices) for choices in trees)
    if cap is not None and cap >= 0:
        stream = islice(stream, cap)
    return stream


def _round_robin(generators):
    """One item from each generator in turn until all are exhausted."""
    active = list(generators)
    while active:
        still = []
        for generator in active:
            item = next(generator, _DONE)
            if item is not _DONE:
                still.append(generator)
                yield item
        active = still


_DONE = object()
