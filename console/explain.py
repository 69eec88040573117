""""Why no candidates?": which constraint of a query removes which providers.

This does not re-implement the candidate engine.  It walks each request
group's constraints one at a time over single providers and reports, per
step, how many providers are left and which ones dropped out:

    resources<S>=CLASS:N   no inventory of CLASS / not enough free capacity
                           (or N outside min_unit..max_unit, not a step_size
                           multiple)
    required<S>=T,!F,in:A,B trait missing / forbidden trait present
    member_of<S>=...        not in the aggregate(s)
    in_tree<S>=UUID         not in that tree
    root_required=...       (on the provider's root)

The unsuffixed group may be spread over a tree and sharing providers, so
for it each resource class is explained on its own.  The real candidates
come from the API's engine (shown beside this when it is available).
"""
from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from urllib.parse import parse_qsl

from django.db.models import Sum

from allocations.models import Allocation
from console.filters import parse_resources
from providers.models import Inventory, ProviderAggregate, ProviderTrait, ResourceProvider

GROUP_KEY = re.compile(r"^(resources|required|member_of|in_tree)([A-Za-z0-9_-]*)$")
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


def parse_query(qs: str):
    groups = defaultdict(lambda: {"resources": {}, "required": [], "member_of": [], "in_tree": None})
    extra = {}
    for key, value in parse_qsl(qs.strip().lstrip("?"), keep_blank_values=True):
        m = GROUP_KEY.match(key)
        if not m:
            extra[key] = value
            continue
        kind, suffix = m.groups()
        g = groups[suffix]
        if kind == "resources":
            try:
                g["resources"].update(parse_resources(value))
            except ValueError as exc:
                raise QueryProblem(str(exc))
        elif kind == "required":
            g["required"].append(value)
        elif kind == "member_of":
            g["member_of"].append(value)
        else:
            g["in_tree"] = value.strip()
    for suffix, g in groups.items():
        if not g["resources"] and suffix:
            raise QueryProblem(f"group {suffix!r} has no resources{suffix}")
    if not any(g["resources"] for g in groups.values()):
        raise QueryProblem("the query asks for no resources (add resources=CLASS:N)")
    return dict(groups), extra


def _split(value):
    return [v.strip() for v in value.split(",") if v.strip()]


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
        for rp, agg in ProviderAggregate.objects.filter(aggregate__uuid__in=aggregates).values_list(
                "resource_provider_id", "aggregate__uuid"):
            self.aggs[rp].add(agg)


def _trait_tests(required_values):
    tests = []
    for value in required_values:
        if value.startswith("in:"):
            any_of = _split(value[3:])
            tests.append((f"required=in:{','.join(any_of)}", "has none of the traits",
                          lambda t, a=set(any_of): bool(t & a), any_of))
            continue
        for name in _split(value):
            if name.startswith("!"):
                tests.append((f"required=!{name[1:]}", f"has forbidden trait {name[1:]}",
                              lambda t, n=name[1:]: n not in t, [name[1:]]))
            else:
                tests.append((f"required={name}", f"lacks trait {name}",
                              lambda t, n=name: n in t, [name]))
    return tests


def _agg_tests(member_of_values):
    tests = []
    for value in member_of_values:
        forbidden = value.startswith("!")
        body = value[1:] if forbidden else value
        body = body[3:] if body.startswith("in:") else body
        uuids = _split(body)
        if forbidden:
            tests.append((f"member_of=!{','.join(uuids)}", "is in a forbidden aggregate",
                          lambda a, u=set(uuids): not (a & u), uuids))
        else:
            tests.append((f"member_of={','.join(uuids)}", "is in none of the aggregates",
                          lambda a, u=set(uuids): bool(a & u), uuids))
    return tests


def explain(qs: str) -> tuple[list[GroupReport], dict]:
    groups, extra = parse_query(qs)
    classes, traits, aggs = set(), set(), set()
    for g in groups.values():
        classes |= set(g["resources"])
        for _, _, _, names in _trait_tests(g["required"]):
            traits |= set(names)
        for _, _, _, uuids in _agg_tests(g["member_of"]):
            aggs |= set(uuids)
    root_tests = _trait_tests([extra["root_required"]]) if extra.get("root_required") else []
    for _, _, _, names in root_tests:
        traits |= set(names)
    data = _Data(classes, traits, aggs)
    tree_roots = {}
    for g in groups.values():
        if g["in_tree"]:
            match = [rp for rp in data.rps.values() if rp["uuid"] == g["in_tree"]]
            tree_roots[g["in_tree"]] = match[0]["root_id"] if match else None

    reports = []
    for suffix in sorted(groups, key=lambda s: (s != "", s)):
        g = groups[suffix]
        key = f"resources{suffix}"
        per_class = suffix == "" and len(g["resources"]) > 1
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

        for rc, amount in g["resources"].items():
            pool = set(alive)
            pool = step(f"{key}={rc}:{amount}", f"no inventory of {rc}",
                        lambda pk, rc=rc: (pk, rc) in data.inv, pool)

            def fits(pk, rc=rc, amount=amount):
                inv = data.inv[(pk, rc)]
                free = inv.capacity - data.used.get((pk, rc), 0)
                return (inv.min_unit <= amount <= inv.max_unit and amount % inv.step_size == 0
                        and free >= amount)

            pool = step(f"{key}={rc}:{amount}",
                        f"not enough free {rc} (capacity, min/max unit or step size)", fits, pool)
            if per_class:
                survivors_any |= pool
            else:
                alive = pool
        if per_class:
            alive = survivors_any
        for constraint, reason, test, _ in _trait_tests(g["required"]):
            alive = step(constraint, reason, lambda pk, test=test: test(data.traits[pk]), alive)
        for constraint, reason, test, _ in _agg_tests(g["member_of"]):
            alive = step(constraint, reason, lambda pk, test=test: test(data.aggs[pk]), alive)
        if g["in_tree"]:
            root = tree_roots.get(g["in_tree"])
            alive = step(f"in_tree{suffix}={g['in_tree']}", "is not in that tree",
                         lambda pk, root=root: data.rps[pk]["root_id"] == root, alive)
        for constraint, reason, test, _ in root_tests:
            alive = step(f"root_{constraint}", f"its root {reason}",
                         lambda pk, test=test: test(data.traits[data.rps[pk]["root_id"]]), alive)
        survivors = sorted(alive, key=lambda pk: data.rps[pk]["name"])
        reports.append(GroupReport(
            suffix, steps,
            [(data.rps[pk]["name"], data.rps[pk]["uuid"]) for pk in survivors[:SHOW]],
            len(survivors)))
    return reports, extra
