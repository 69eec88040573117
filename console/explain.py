""""Why no candidates?": which constraint of a query removes which providers.

This does not re-implement the candidate engine.  The query is read by the
same grammar as the API's (``placement_site.querystring``, leniently), and
each request group's constraints are walked one at a time over single
providers, reporting per step how many providers are left and which ones
dropped out:

    resources<S>=CLASS:N   no inventory of CLASS / not enough free capacity
                           (or N outside min_unit..max_unit, not a step_size
                           multiple)
    required<S>=T,!F,in:A,B trait missing / forbidden trait present
    member_of<S>=...        not in the aggregate(s)
    in_tree<S>=UUID         not in that tree
    root_required=...       (on the provider's root)

The unsuffixed group may be spread over a tree and sharing providers, so
for it each resource class is explained on its own.  The real candidates
come from the engine itself (``console.candidates_bridge``).
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict

from django.db.models import Sum
from django.http import QueryDict

from allocations.models import Allocation
from placement_site import errors
from placement_site.querystring import CandidateRequest, RequiredTraits, parse_candidate_request
from placement_site.uuids import normalize_uuid
from providers.models import Inventory, ProviderAggregate, ProviderTrait, ResourceProvider
from providers.selectors import aggregate_spellings

SHOW = 15


@dataclasses.dataclass
class Step:
    constraint: str
    reason: str
    removed: list  # of (name, uuid)
    removed_count: int
    left: int


@dataclasses.dataclass
class GroupReport:
    suffix: str
    steps: list
    survivors: list  # (name, uuid)
    survivor_count: int


class QueryProblem(ValueError):
    pass


def parse_query(qs: str) -> CandidateRequest:
    """The console's query as the API's grammar reads it (leniently)."""
    try:
        return parse_candidate_request(QueryDict(qs.strip().lstrip("?")), strict=False)
    except errors.PlacementError as exc:
        raise QueryProblem(str(exc))


class _Data:
    """Everything the walk needs, in a fixed number of queries."""

    def __init__(self, classes, traits, aggregates):
        self.rps = {rp["pk"]: rp for rp in ResourceProvider.objects.values(
            "pk", "uuid", "name", "root_id")}
        self.inv = {(i.resource_provider_id, i.resource_class.name): i for i in
                    Inventory.objects.filter(resource_class__name__in=classes)
                    .select_related("resource_class")}
        self.used = {(r["resource_provider_id"], r["resource_class__name"]): r["u"] for r in
                     Allocation.objects.filter(resource_class__name__in=classes)
                     .values("resource_provider_id", "resource_class__name")
                     .annotate(u=Sum("used")).order_by()}
        self.traits = defaultdict(set)
        for rp, name in ProviderTrait.objects.filter(trait__name__in=traits).values_list(
                "resource_provider_id", "trait__name"):
            self.traits[rp].add(name)
        self.aggs = defaultdict(set)
        for rp, agg in ProviderAggregate.objects.filter(
                aggregate__uuid__in=aggregate_spellings(aggregates)).values_list(
                "resource_provider_id", "aggregate__uuid"):
            self.aggs[rp].add(normalize_uuid(agg) or agg)


def _trait_tests(required, label="required"):
    """(constraint, reason, test on a set of trait names, names) per trait rule."""
    tests = []
    for any_of in required.any_of:
        names = sorted(any_of)
        if len(names) > 1:
            tests.append((f"{label}=in:{','.join(names)}", "has none of the traits",
                          lambda t, a=any_of: bool(t & a), names))
        else:
            tests.append((f"{label}={names[0]}", f"lacks trait {names[0]}",
                          lambda t, n=names[0]: n in t, names))
    for name in sorted(required.forbidden):
        tests.append((f"{label}=!{name}", f"has forbidden trait {name}",
                      lambda t, n=name: n not in t, [name]))
    return tests


def _agg_tests(member_of):
    """(constraint, reason, test on a set of aggregate uuids, uuids) per aggregate rule."""
    tests = []
    for any_of in member_of.any_of:
        uuids = sorted(any_of)
        tests.append((f"member_of={','.join(uuids)}", "is in none of the aggregates",
                      lambda a, u=any_of: bool(a & u), uuids))
    if member_of.forbidden:
        uuids = sorted(member_of.forbidden)
        tests.append((f"member_of=!{','.join(uuids)}", "is in a forbidden aggregate",
                      lambda a, u=member_of.forbidden: not (a & u), uuids))
    return tests


def explain(request: CandidateRequest) -> list[GroupReport]:
    """One report per request group of ``request`` (from :func:`parse_query`)."""
    root_tests = _trait_tests(
        RequiredTraits(any_of=[frozenset([n]) for n in sorted(request.root_required)],
                       forbidden=set(request.root_forbidden)),
        label="required",
    )
    classes, traits, aggs = set(), set(), set()
    for g in request.groups:
        classes |= set(g.resources)
        traits |= g.required.names()
        for any_of in g.member_of.any_of:
            aggs |= any_of
        aggs |= g.member_of.forbidden
    traits |= set(request.root_required) | set(request.root_forbidden)
    data = _Data(classes, traits, aggs)
    by_uuid = {rp["uuid"]: rp["root_id"] for rp in data.rps.values()}
    return [_group_report(data, g, root_tests, by_uuid) for g in request.groups]


def _group_report(data, g, root_tests, root_by_uuid) -> GroupReport:
    key = f"resources{g.suffix}"
    per_class = g.suffix == "" and len(g.resources) > 1
    steps = []
    alive = set(data.rps)
    survivors_any = set()

    def step(constraint, reason, test, pool):
        removed = sorted((pk for pk in pool if not test(pk)),
                         key=lambda pk: data.rps[pk]["name"])
        pool -= set(removed)
        steps.append(Step(constraint, reason,
                          [(data.rps[pk]["name"], data.rps[pk]["uuid"]) for pk in removed[:SHOW]],
                          len(removed), len(pool)))
        return pool

    for rc, amount in g.resources.items():
        pool = step(f"{key}={rc}:{amount}", f"no inventory of {rc}",
                    lambda pk, rc=rc: (pk, rc) in data.inv, set(alive))
        pool = step(f"{key}={rc}:{amount}",
                    f"not enough free {rc} (capacity, min/max unit or step size)",
                    lambda pk, rc=rc, amount=amount: data.inv[(pk, rc)].fits(
                        amount, data.used.get((pk, rc), 0)),
                    pool)
        if per_class:
            survivors_any |= pool
        else:
            alive = pool
    if per_class:
        alive = survivors_any
    for constraint, reason, test, _ in _trait_tests(g.required, label=f"required{g.suffix}"):
        alive = step(constraint, reason, lambda pk, test=test: test(data.traits[pk]), alive)
    for constraint, reason, test, _ in _agg_tests(g.member_of):
        alive = step(constraint, reason, lambda pk, test=test: test(data.aggs[pk]), alive)
    if g.in_tree:
        root = root_by_uuid.get(g.in_tree)
        alive = step(f"in_tree{g.suffix}={g.in_tree}", "is not in that tree",
                     lambda pk, root=root: data.rps[pk]["root_id"] == root, alive)
    for constraint, reason, test, _ in root_tests:
        alive = step(f"root_{constraint}", f"its root {reason}",
                     lambda pk, test=test: test(data.traits[data.rps[pk]["root_id"]]), alive)
    survivors = sorted(alive, key=lambda pk: data.rps[pk]["name"])
    return GroupReport(
        g.suffix, steps,
        [(data.rps[pk]["name"], data.rps[pk]["uuid"]) for pk in survivors[:SHOW]],
        len(survivors))
