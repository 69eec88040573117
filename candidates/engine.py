"""The allocation-candidate engine: a CandidateRequest in, a CandidateResult out.

No HTTP and no JSON here: the API view (``candidates.api.views``)
parses the query with ``placement_core.querystring``, calls
:func:`find_candidates` and renders the result; the console's explainer
calls the same function.

The search, in a fixed number of SQL statements (``candidates.sql``)
whatever the number of providers (a few more per batch of trees when a
limit applies, ``candidates.paging``): load the sharing providers and the trees they reach, then
the inventories that can serve a requested amount and the trees' providers
with their traits and aggregates; build, per tree and per group, the ways
the group can be met (``combiner.Choice``) and let ``candidates.combiner``
pick valid combinations.

Semantics (from the API reference and provider-tree guide):

- the unsuffixed group may spread its classes over providers of one tree
  plus sharing providers (trait ``MISC_SHARES_VIA_AGGREGATE``) that share an
  aggregate with any provider of that tree, one provider per class; its
  required/forbidden traits are judged on the union of the traits of the
  providers it uses; its ``member_of`` counts a root's aggregates for the
  whole tree;
- a suffixed group is met by one provider alone, with the traits and the
  aggregates itself;
- ``in_tree`` keeps a group's providers (sharing ones included) inside the
  tree of the named provider; ``root_required`` judges the anchor tree's
  root.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import partial
from typing import NamedTuple

from django.conf import settings

from candidates import combiner
from candidates.choices import Trees, problem
from candidates.context import SearchContext, load_sharing, resolve, smallest_amounts
from candidates.summaries import summaries
from placement_core import errors
from placement_core.querystring import CandidateRequest

__all__ = ["AllocationRequest", "CandidateResult", "find_candidates", "serving_roots"]


# -- What comes out ---------------------------------------------------------------


class AllocationRequest(NamedTuple):
    """One candidate: ``allocations``, {provider uuid: {"resources": {class
    name: amount}}} (the body's shape from microversion 1.12, so that the
    renderer passes it on rather than wrapping every provider of thousands
    of candidates), and ``mappings``, per group suffix, the uuids of the
    providers that group uses. A named tuple: a large answer builds
    thousands. Read only: candidates share the parts their choices share."""

    allocations: dict
    mappings: dict


# AllocationRequest((allocations, mappings)), built in C (as combiner.new_choice).
_new_request = partial(tuple.__new__, AllocationRequest)


@dataclass
class CandidateResult:
    allocation_requests: list = field(default_factory=list)
    # {uuid: summary}, by provider id, as the answer shows it (candidates.summaries)
    provider_summaries: dict = field(default_factory=dict)


# -- The search ---------------------------------------------------------------------


def find_candidates(request: CandidateRequest) -> CandidateResult:
    """The allocation requests and provider summaries answering ``request``."""
    ctx = resolve(request)
    smallest = smallest_amounts(ctx)
    if not smallest:
        return CandidateResult()
    try:
        found = _search(ctx, smallest)
    except combiner.TooMuchWork:
        raise _too_much_work() from None
    return CandidateResult(
        allocation_requests=_allocation_requests(ctx, found),
        provider_summaries=summaries(ctx, found),
    )


def serving_roots(request: CandidateRequest) -> set:
    """The ids of the roots of every provider that the answer to
    ``request`` (with no limit and no cap) allocates from: which hosts can
    take it, each counted with its whole tree and the sharing providers that
    reach it: the roots of the providers an allocation request takes from,
    sharing providers left out unless it takes only from them (then theirs).
    The same search as :func:`find_candidates`, but a tree's combinations
    are walked only until one uses the tree itself."""
    ctx = resolve(request)
    smallest = smallest_amounts(ctx)
    if not smallest:
        return set()
    found = set()
    try:
        load_sharing(ctx, smallest)
        checks = problem(ctx, settings.PLACEMENT_CANDIDATE_WORK_LIMIT)
        for root, lists in _servable(Trees(ctx), smallest, None):
            for combination in combiner.tree_combinations(lists, checks):
                used = {rp for choice in combination for rp, _, _ in choice.allocs}
                roots = {ctx.providers[rp].root_id
                         for rp in (used - ctx.sharing or used)}
                found |= roots
                if root in roots:
                    break
    except combiner.TooMuchWork:
        raise _too_much_work() from None
    return found


def _too_much_work() -> errors.BadRequest:
    # A few granular groups over a wide tree multiply into hundreds of
    # thousands of candidates (8 groups of VCPU:1 over 8 NUMA cells:
    # 8**8): refuse such a request before it holds a worker and its memory.
    limit = settings.PLACEMENT_CANDIDATE_WORK_LIMIT
    return errors.BadRequest(
        f"The request would combine more than {limit} provider choices; narrow it "
        "(fewer or less general request groups, group_policy=isolate, limit) or "
        "raise [placement] candidate_work_limit.",
        code=errors.QUERY_TOO_MUCH_WORK,
    )


def _servable(trees: Trees, smallest: dict, page):
    """(root, one choice list per group) of each tree that can serve, in root order."""
    return ((root, lists) for root in trees.load(smallest, page)
            if (lists := trees.tree(root)) is not None)


def _search(ctx: SearchContext, smallest: dict) -> list:
    """Load the trees and return the valid combinations (one Choice per
    group), capped and ordered as configured."""
    limit = ctx.request.limit
    cap = settings.PLACEMENT_MAX_ALLOCATION_CANDIDATES
    randomize = settings.PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES
    strategy = settings.PLACEMENT_ALLOCATION_CANDIDATES_GENERATION_STRATEGY
    # Without shuffling, the first `limit` results are the answer: stop there
    # (and, depth-first, neither load nor work out a tree past the one that
    # fills it).
    if limit is not None and not randomize:
        cap = limit if cap is None or cap < 0 else min(cap, limit)
    capped = cap is not None and cap >= 0
    page = cap if capped and not randomize and strategy == "depth-first" else None
    if page is None:
        # Every tree is loaded at once, and the sharing providers before
        # them; a limited search reads those reaching each batch of trees.
        load_sharing(ctx, smallest)
    trees = Trees(ctx)
    results = []
    servable = (
        lists for root in trees.load(smallest, page, produced=results.__len__)
        if (lists := trees.tree(root)) is not None
    )
    for combination in combiner.combine(
        servable,
        problem(ctx, settings.PLACEMENT_CANDIDATE_WORK_LIMIT),
        strategy=strategy,
        cap=cap,
    ):
        results.append(combination)
    if randomize:
        random.shuffle(results)
    if limit is not None:
        results = results[:limit]
    return results


# -- The result ---------------------------------------------------------------------


def _allocation_requests(ctx: SearchContext, found: list) -> list:
    """An AllocationRequest per combination of ``found``. One call for the
    whole answer rather than one a candidate (a nested answer has thousands)."""
    suffixes = [group.spec.suffix for group in ctx.groups]
    if len(suffixes) == 1:
        return _one_group_requests(ctx, found, suffixes[0])
    return _merged_requests(ctx, found, suffixes)


def _one_group_requests(ctx: SearchContext, found: list, suffix: str) -> list:
    # One group (every candidate of a flat cloud): each choice is one
    # candidate, and there is nothing to add up.
    providers, class_names = ctx.providers, ctx.class_names
    out = []
    for (choice,) in found:
        allocations, mapped = _share(providers, class_names, choice)
        out.append(_new_request((allocations, {suffix: mapped})))
    return out


def _merged_requests(ctx: SearchContext, found: list, suffixes: list) -> list:
    # A choice is in many candidates (on the nested bench each tree's disk
    # and compute choices are in both of its candidates): what it adds to
    # one, its providers' resources and its mapping, is worked out once and
    # shared by them (read only from here on). By id: ``found`` keeps every
    # choice alive.
    providers, class_names = ctx.providers, ctx.class_names
    shares = {}
    out = []
    for combination in found:
        allocations, mappings, named = {}, {}, 0
        for suffix, choice in zip(suffixes, combination):
            share = shares.get(id(choice))
            if share is None:
                share = shares[id(choice)] = _share(providers, class_names, choice)
            resources, mappings[suffix] = share
            allocations.update(resources)
            named += len(resources)
        if len(allocations) < named:
            # Two groups on one provider: their amounts are added up.
            allocations = _merged_allocations(providers, class_names, combination)
        out.append(_new_request((allocations, mappings)))
    return out


def _share(providers: dict, class_names: dict, choice) -> tuple:
    """({provider uuid: {"resources": {class name: amount}}}, the group's
    mapping: the uuids of the providers it uses) of one choice; its allocs
    hold each (provider, class) once, in class order, and only providers
    of ``choice.providers``."""
    chosen, allocs = choice
    if len(chosen) == 1:  # every suffixed group, every flat candidate
        uuid = providers[chosen[0]].uuid
        named = {}
        for _, rc, amount in allocs:
            named[class_names[rc]] = amount
        return ({uuid: {"resources": named}} if named else {}), [uuid]
    resources = {}
    for rp, rc, amount in allocs:
        uuid = providers[rp].uuid
        per = resources.get(uuid)
        if per is None:
            resources[uuid] = {"resources": {class_names[rc]: amount}}
        else:
            per["resources"][class_names[rc]] = amount
    return resources, sorted(providers[p].uuid for p in chosen)


def _merged_allocations(providers: dict, class_names: dict, combination) -> dict:
    """{provider uuid: {"resources": {class name: amount}}} of a candidate
    whose groups share a provider: their amounts of a class added up, in
    class order."""
    merged = {}
    for choice in combination:
        for rp, rc, amount in choice.allocs:
            per = merged.get(rp)
            if per is None:
                merged[rp] = {rc: amount}
            else:
                per[rc] = per.get(rc, 0) + amount
    return {providers[rp].uuid: {"resources": {class_names[rc]: amount
                                               for rc, amount in sorted(res.items())}}
            for rp, res in merged.items()}
