"""Why an allocation-candidates query finds what it finds (or nothing).

The operator's question after a "No valid host": which request group, and
which of its constraints, removed which providers.  The answer is worked out
with the candidate engine's own pieces (``candidates.choices`` and ``candidates.context``: name
resolution, the per-group choice builders, the root filter; the combiner's
checks), run over a context that holds *every* inventory of the requested
classes rather than only the usable ones, so that each provider the engine
would drop can be given its reason with the numbers.  The candidates
themselves come from :func:`candidates.engine.find_candidates`, so the verdict cannot
disagree with ``GET /allocation_candidates``.

Three levels, in the order the engine applies them:

1. per group and provider: resource class missing, ``min_unit``,
   ``max_unit``, ``step_size``, capacity (asked vs free), required,
   forbidden and any-of traits, ``member_of``, ``in_tree``; for the
   unsuffixed group each class is judged on its own, because it may take
   each class from a different provider of the tree or a sharing one;
2. per group and tree: whether the group can be met in that tree at all
   (the unsuffixed group's classes, through sharing providers too, and its
   required traits judged on the providers it would use together);
3. per tree for the request: ``root_required``, ``group_policy=isolate``,
   ``same_subtree``, the groups' combined amounts on one provider; then
   ``limit``.

Callers: ``manage.py explain_candidates``, ``GET /explain`` and the
console's "Why no candidates?" page.
"""
from __future__ import annotations

import dataclasses
from typing import NamedTuple

from django.db.models import Q, Sum

from allocations.models import Allocation
from candidates import combiner, sql
from candidates.choices import amount_fits, anchors, choices_by_root, problem, usable_roots
from candidates.context import SHARES_TRAIT, TreeProvider, add_inventory, resolve
from candidates.engine import find_candidates
from candidates.explanation import (
    CLASS_REASONS,
    Closest,
    Explanation,
    GroupExplanation,
    Reason,
    Removed,
    Step,
)
from candidates.query import group_text, request_text
from placement_core import errors
from placement_core.querystring import CandidateRequest
from placement_core.uuids import normalize_uuid
from providers.models import (
    Inventory,
    ProviderAggregate,
    ProviderTrait,
    ResourceProvider,
)
from providers.selectors import DISABLED_TRAIT

SHOW = 20  # providers or trees listed per step (the counts are always whole)
CLOSEST = 5


# -- The diagnosis ------------------------------------------------------------------


def explain(request: CandidateRequest, *, show: int = SHOW) -> Explanation:
    """Explain ``request``; raises ``errors.BadRequest`` for unknown classes,
    traits, as the API would."""
    ctx = resolve(request)
    names, disabled = _load_everything(ctx)
    trait_names = {tid: name for name, tid in ctx.trait_ids.items()}
    per_group = []
    groups = []
    for group in ctx.groups:
        choices = choices_by_root(ctx, group)
        per_group.append(choices)
        groups.append(_explain_group(ctx, group, choices, names, trait_names, show, disabled))
    steps, left = _request_steps(ctx, per_group, names, show)

    answer, unlimited = _candidates(request)
    found = len(answer)
    if unlimited > found:
        steps.append(Step(f"limit={request.limit}", "limit", unlimited - found, [], found))
    by_uuid = {p.uuid: names[p.id] for p in ctx.providers.values()}
    sample = [
        {by_uuid.get(u, u): dict(res["resources"]) for u, res in ar.allocations.items()}
        for ar in answer[:5]
    ]
    return Explanation(
        query=request_text(request), candidates=found, groups=groups, steps=steps,
        sample=sample, verdict=_verdict(found, groups, steps),
    )


def _candidates(request: CandidateRequest) -> tuple[list, int]:
    """The engine's allocation requests for ``request``, and how many there
    would be without its ``limit``.

    One search serves both: the limited answer is the first ``limit``
    requests of the unlimited one (the combiner stops a prefix of the same
    walk), or, when the engine shuffles, ``limit`` of them at random, which
    the first ``limit`` of a shuffled whole are as well.  A second, limited
    search is run only when the whole would be more work than
    ``candidate_work_limit`` allows; its removals are then not counted."""
    if request.limit is None:
        found = find_candidates(request).allocation_requests
        return found, len(found)
    try:
        whole = find_candidates(dataclasses.replace(request, limit=None)).allocation_requests
    except errors.BadRequest as exc:
        if exc.code != errors.QUERY_TOO_MUCH_WORK:
            raise
        found = find_candidates(request).allocation_requests
        return found, len(found)
    return whole[:request.limit], len(whole)


def _load_everything(ctx) -> dict:
    """Fill ``ctx`` as the engine's loaders do, but with every provider and every
    inventory of the requested classes, usable or not.  Returns {id: name}
    and the ids of the providers in a disabled tree (DISABLED_TRAIT on the
    root, the one rule of providers.selectors)."""
    class_ids = sorted(ctx.class_names)
    used = {
        (row["resource_provider_id"], row["resource_class_id"]): int(row["u"])
        for row in Allocation.objects.filter(resource_class_id__in=class_ids)
        .values("resource_provider_id", "resource_class_id").annotate(u=Sum("used")).order_by()
    }
    # In the shape of the engine's Q1 rows, so that the engine files them.
    add_inventory(ctx, [
        (rp, rc, total, reserved, min_unit, max_unit, step, ratio, used.get((rp, rc), 0), pk)
        for rp, rc, total, reserved, min_unit, max_unit, step, ratio, pk
        in Inventory.objects.filter(resource_class_id__in=class_ids).order_by("pk").values_list(
            "resource_provider_id", "resource_class_id", "total", "reserved", "min_unit",
            "max_unit", "step_size", "allocation_ratio", "pk")
    ])
    names = {}
    for pk, uuid, name, parent, root in ResourceProvider.objects.values_list(
            "pk", "uuid", "name", "parent_id", "root_id").order_by("pk"):
        ctx.providers[pk] = TreeProvider(pk, uuid, parent, root or pk)
        names[pk] = name
    asked = set(ctx.trait_ids.values())
    disabled_roots = set()
    # The disabled trait rides along in the same statement.
    for pid, tid, trait in ProviderTrait.objects.filter(
            Q(trait_id__in=list(asked)) | Q(trait__name=DISABLED_TRAIT)).values_list(
            "resource_provider_id", "trait_id", "trait__name"):
        if tid in asked:
            ctx.providers[pid].traits.add(tid)
        if trait == DISABLED_TRAIT:
            disabled_roots.add(pid)
    disabled = {pid for pid, p in ctx.providers.items() if p.root_id in disabled_roots}
    # Every row, not an IN list of every provider: SQLite caps the parameters.
    spelled = {}
    for pid, agg in ProviderAggregate.objects.values_list(
            "resource_provider_id", "aggregate__uuid").order_by():
        canonical = spelled.get(agg)
        if canonical is None:
            canonical = spelled[agg] = normalize_uuid(agg) or agg
        ctx.providers[pid].aggs.add(canonical)
    shares = ctx.trait_ids.get(SHARES_TRAIT)
    with_inventory = {rp for rp, _ in ctx.inventory}
    if shares is not None:
        ctx.sharing = {
            pid for pid in with_inventory if shares in ctx.providers[pid].traits
        }
    if ctx.sharing:
        ctx.reaches = sql.trees_reached(ctx.sharing)
    return names, disabled


class _Failure(NamedTuple):
    kind: str
    constraint: str
    reason: str
    numbers: dict
    resource_class: str | None = None


def _class_failure(kind, constraint, name, numbers) -> _Failure:
    return _Failure(kind, constraint, CLASS_REASONS[kind].format(rc=name, **numbers), numbers,
                    name)


def _class_failures(ctx, rp, rc, amount, constraint) -> list:
    """Why provider ``rp`` cannot give ``amount`` of class ``rc`` in one allocation."""
    name = ctx.class_names[rc]
    entry = ctx.inventory.get((rp, rc))
    if entry is None:
        return [_class_failure("resource_class_missing", constraint, name, {"asked": amount})]
    capacity, used, min_unit, max_unit, step = entry
    out = []
    if amount < min_unit:
        out.append(_class_failure("min_unit", constraint, name,
                                  {"asked": amount, "min_unit": min_unit}))
    if amount > max_unit:
        out.append(_class_failure("max_unit", constraint, name,
                                  {"asked": amount, "max_unit": max_unit}))
    if step and amount % step:
        out.append(_class_failure("step_size", constraint, name,
                                  {"asked": amount, "step_size": step}))
    free = capacity - used
    if amount > free:
        out.append(_class_failure("capacity", constraint, name, {
            "asked": amount, "free": free, "capacity": capacity, "used": used}))
    return out


def _provider_failures(ctx, group, p, trait_names, *, spread) -> list:
    """Why provider ``p`` fails the group's trait, aggregate and tree filters.
    A spread group's required traits are judged on the providers it uses
    together, so they are left to the tree level."""
    member_of = group.spec.member_of
    if not ((group.required and not spread) or group.forbidden or member_of.any_of
            or member_of.forbidden or group.in_tree_root is not None):
        # Nothing to fail (a group of resources alone, as a flavor asks):
        # asked of every provider for every class, so answered first.
        return []
    s = group.spec.suffix
    out = []
    if not spread:
        for any_of in group.required:
            if p.traits.isdisjoint(any_of):
                wanted = sorted(trait_names[t] for t in any_of)
                if len(wanted) == 1:
                    out.append(_Failure("required", f"required{s}={wanted[0]}",
                                f"lacks trait {wanted[0]}", {}))
                else:
                    out.append(_Failure("any_of_traits", f"required{s}=in:{','.join(wanted)}",
                                f"has none of {', '.join(wanted)}", {}))
    for t in sorted(p.traits & group.forbidden):
        out.append(_Failure("forbidden", f"required{s}=!{trait_names[t]}",
                    f"has forbidden trait {trait_names[t]}", {}))
    if member_of.any_of or member_of.forbidden:
        aggs = p.aggs
        root_aggs = None
        if spread and p.parent_id is not None and p.root_id in ctx.providers:
            root_aggs = ctx.providers[p.root_id].aggs
            aggs = aggs | root_aggs
        # As the engine: the provider alone, or its root alone, must be in
        # every listed set; a root in all of them excuses the provider.
        root_in_all = root_aggs is not None and all(
            not root_aggs.isdisjoint(any_of) for any_of in member_of.any_of)
        for any_of in member_of.any_of:
            if not root_in_all and p.aggs.isdisjoint(any_of):
                out.append(_Failure("member_of", f"member_of{s}={','.join(sorted(any_of))}",
                            "is in none of the aggregates", {}))
        if not aggs.isdisjoint(member_of.forbidden):
            out.append(_Failure("member_of", f"member_of{s}=!{','.join(sorted(member_of.forbidden))}",
                        "is in a forbidden aggregate", {}))
    if group.in_tree_root is not None and p.root_id != group.in_tree_root:
        out.append(_Failure("in_tree", f"in_tree{s}={group.spec.in_tree}",
                    "is not in that tree" if group.in_tree_root != -1
                    else "no provider has that uuid", {}))
    return out


def _funnel(pool_failures: dict, names, ctx, show, resource_class=None) -> tuple[list, set]:
    """Steps from {provider id: [failure, ...]}: a provider is removed by its
    first failure, in the order the constraints were checked."""
    order = []
    for failures in pool_failures.values():
        for failure in failures:
            if (failure.kind, failure.constraint) not in order:
                order.append((failure.kind, failure.constraint))
    order.sort(key=lambda kc: _ORDER.index(kc[0]))
    # A provider goes at the first step it fails, whichever of its failures
    # that is (one lacking two classes goes at the first class's step).
    position = {kc: i for i, kc in enumerate(order)}
    first = {}  # provider id -> (step index, its failure there)
    for pid, failures in pool_failures.items():
        if failures:
            first[pid] = min(((position[(f.kind, f.constraint)], f) for f in failures),
                             key=lambda item: item[0])
    left = len(pool_failures)
    steps = []
    for index, (kind, constraint) in enumerate(order):
        removed = sorted((pid for pid, (i, _) in first.items() if i == index),
                         key=lambda pid: names[pid])
        if not removed:
            continue
        left -= len(removed)
        steps.append(Step(
            constraint, kind, len(removed),
            [Removed(ctx.providers[pid].uuid, names[pid], first[pid][1].reason,
                     first[pid][1].numbers, first[pid][1].resource_class)
             for pid in removed[:show]],
            left, resource_class))
    survivors = {pid for pid, f in pool_failures.items() if not f}
    return steps, survivors


def _shortfall(failure) -> float:
    """How far a failure is from passing, as a share of the amount asked
    (0: just missed; 1: as far as it gets): orders the providers that came
    closest among those failing as many constraints."""
    n = failure.numbers
    if failure.kind == "capacity":
        return min(1.0, (n["asked"] - max(n["free"], 0)) / n["asked"])
    if failure.kind == "max_unit":
        return min(1.0, (n["asked"] - n["max_unit"]) / n["asked"])
    if failure.kind == "min_unit":
        return min(1.0, (n["min_unit"] - n["asked"]) / n["min_unit"])
    if failure.kind == "step_size":
        off = n["asked"] % n["step_size"]
        return min(off, n["step_size"] - off) / n["asked"]
    return 1.0


_ORDER = ["resource_class_missing", "min_unit", "max_unit", "step_size", "capacity",
          "required", "any_of_traits", "forbidden", "member_of", "in_tree"]


def _sorted_failures(failures):
    return sorted(failures, key=lambda f: _ORDER.index(f[0]))


def _explain_group(ctx, group, choices, names, trait_names, show,
                   disabled=frozenset()) -> GroupExplanation:
    s = group.spec.suffix
    spread = not group.spec.use_same_provider
    steps, closest_pool, providers_left = [], [], {}
    if spread:
        # One funnel per class: the group may take each from another provider.
        for rc, amount in sorted(group.resources.items(), key=lambda kv: ctx.class_names[kv[0]]):
            cname = ctx.class_names[rc]
            constraint = f"resources{s}={cname}:{amount}"
            failures = {
                pid: _sorted_failures(
                    _class_failures(ctx, pid, rc, amount, constraint)
                    + _provider_failures(ctx, group, p, trait_names, spread=True))
                for pid, p in ctx.providers.items()
            }
            class_steps, survivors = _funnel(failures, names, ctx, show, cname)
            steps += class_steps
            providers_left[cname] = len(survivors)
            closest_pool += [(pid, f, cname) for pid, f in failures.items()
                             if f and f[0][0] != "resource_class_missing"]
    else:
        failures = {}
        for pid, p in ctx.providers.items():
            f = []
            for rc, amount in group.resources.items():
                f += _class_failures(ctx, pid, rc, amount,
                                     f"resources{s}={ctx.class_names[rc]}:{amount}")
            f += _provider_failures(ctx, group, p, trait_names, spread=False)
            failures[pid] = _sorted_failures(f)
        steps, survivors = _funnel(failures, names, ctx, show)
        providers_left[""] = len(survivors)
        closest_pool = [(pid, f, None) for pid, f in failures.items()
                        if f and not all(k == "resource_class_missing" for k, *_ in f)]
    # Never a provider Nova would not use (a disabled tree).
    closest_pool = [item for item in closest_pool if item[0] not in disabled]
    closest_pool.sort(key=lambda item: (len(item[1]), sum(map(_shortfall, item[1])),
                                        names[item[0]]))
    closest = [
        Closest(ctx.providers[pid].uuid, names[pid], [x.reason for x in f], cname,
                [Reason(x.kind, x.reason, x.numbers, x.resource_class) for x in f])
        for pid, f, cname in closest_pool[:CLOSEST]
    ]
    tree_steps = _tree_steps(ctx, group, choices, names, trait_names, show) if spread else []
    sharing = []
    for pid in sorted(ctx.sharing, key=lambda pid: names[pid]):
        classes = sorted(ctx.class_names[rc] for rc in group.resources
                         if (pid, rc) in ctx.inventory)
        reached = ctx.reaches.get(pid, set()) - {ctx.providers[pid].root_id}
        if classes:
            sharing.append({"uuid": ctx.providers[pid].uuid, "name": names[pid],
                            "classes": classes, "trees_reached": len(reached)})
    return GroupExplanation(
        suffix=s, query=group_text(group.spec), spread=spread, steps=steps,
        providers_left=providers_left, tree_steps=tree_steps, trees_left=len(choices),
        sharing=sharing, closest=closest,
    )


def _tree_steps(ctx, group, choices, names, trait_names, show) -> list:
    """Trees that had something for the group yet cannot meet it: a class with
    no able provider in the tree nor shared with it, or required traits that
    no usable set of providers has between them."""
    s = group.spec.suffix
    able = {}  # root -> classes with an able provider for that tree
    for (pid, rc), entry in ctx.inventory.items():
        amount = group.resources.get(rc)
        if amount is None:
            continue
        p = ctx.providers[pid]
        if amount_fits(entry, amount) and not (
            _provider_failures(ctx, group, p, trait_names, spread=True)
        ):
            for root in anchors(ctx, pid, p):
                able.setdefault(root, set()).add(rc)
    missing_steps, trait_lost = {}, []
    class_ids = {ctx.class_names[rc]: rc for rc in group.resources}
    # Which providers of each asked class each tree can draw on, read once:
    # scanning every inventory again for each tree is trees x inventories.
    reach = {}
    for (pid, rc) in ctx.inventory:
        if rc in group.resources:
            for root in anchors(ctx, pid, ctx.providers[pid]):
                reach.setdefault((root, rc), []).append(pid)
    for root in sorted(set(able) - set(choices), key=lambda r: names[r]):
        lacking = sorted(ctx.class_names[rc] for rc in set(group.resources) - able[root])
        if lacking:
            rc = class_ids[lacking[0]]
            why = _tree_class_failure(ctx, group, rc, reach.get((root, rc), ()), lacking,
                                      names, trait_names)
            missing_steps.setdefault((lacking[0], why.kind), []).append((root, lacking, why))
        else:
            trait_lost.append(root)
    steps = []
    left = len(set(able))
    for (cname, kind), roots in sorted(missing_steps.items(),
                                       key=lambda kv: (kv[0][0], _ORDER.index(kv[0][1]))):
        left -= len(roots)
        steps.append(Step(
            f"resources{s}={cname}:{group.spec.resources[cname]}", kind, len(roots),
            # No resource_class on the removal: its sentence names a
            # provider besides the numbers, so it is shown as written.
            [Removed(ctx.providers[r].uuid, names[r], why.reason,
                     {"classes": lacking, **why.numbers})
             for r, lacking, why in roots[:show]],
            left, cname))
    if trait_lost:
        left -= len(trait_lost)
        wanted = [sorted(trait_names[t] for t in any_of) for any_of in group.required]
        text = " and ".join(w[0] if len(w) == 1 else "one of " + ",".join(w) for w in wanted)
        steps.append(Step(
            f"required{s}=" + ",".join("|".join(w) for w in wanted), "required", len(trait_lost),
            [Removed(ctx.providers[r].uuid, names[r],
                     f"the providers the group could use here do not have {text} between them")
             for r in trait_lost[:show]],
            left))
    return steps


def _tree_class_failure(ctx, group, rc, reachable, lacking, names, trait_names) -> _Failure:
    """Why no provider of a tree (nor a sharing provider reaching it) can
    give the group's amount of class ``rc`` (the first of the classes
    ``lacking``; ``reachable``: the providers with inventory of ``rc`` the
    tree can draw on): missing when there is none, else the failure of the
    one that came closest (max_unit, capacity, ...), naming it."""
    amount = group.resources[rc]
    cname = ctx.class_names[rc]
    constraint = f"resources{group.spec.suffix}={cname}:{amount}"
    nearest = []
    for pid in reachable:
        p = ctx.providers[pid]
        failures = _sorted_failures(
            _class_failures(ctx, pid, rc, amount, constraint)
            + _provider_failures(ctx, group, p, trait_names, spread=True))
        if failures:
            nearest.append((len(failures), sum(map(_shortfall, failures)), names[pid],
                            failures[0]))
    where = "no provider of this tree, nor a sharing provider in an aggregate with it,"
    if not nearest:
        return _Failure("resource_class_missing", constraint,
                        f"{where} can give {', '.join(lacking)}", {})
    *_, name, failure = min(nearest, key=lambda item: item[:3])
    return _Failure(failure.kind, constraint,
                    f"{where} can give {cname}:{amount}; closest: {name} ({failure.reason})",
                    failure.numbers, cname)


def _request_steps(ctx, per_group, names, show) -> tuple[list, int]:
    """Trees every group can use, then those removed by root_required, group
    policy, same_subtree and the groups' combined amounts."""
    steps = []
    if not per_group:
        return steps, 0
    together = set(per_group[0])
    for choices in per_group[1:]:
        together &= set(choices)
    alive = set(usable_roots(ctx, per_group))
    lost = sorted(together - alive, key=lambda r: names[r])
    if lost:
        request = ctx.request
        text = ",".join(sorted(request.root_required)
                        + [f"!{t}" for t in sorted(request.root_forbidden)])
        steps.append(Step(
            f"root_required={text}", "root_required", len(lost),
            [Removed(ctx.providers[r].uuid, names[r],
                     f"root {names[r]} does not match root_required={text}") for r in lost[:show]],
            len(alive)))
    whole = problem(ctx)
    relaxed = {
        "group_policy": dataclasses.replace(whole, isolated_groups=[False] * len(per_group)),
        "same_subtree": dataclasses.replace(whole, same_subtree=[]),
    }
    removed = {"group_policy": [], "same_subtree": [], "combined": []}
    for root in sorted(alive, key=lambda r: names[r]):
        choices = [c[root] for c in per_group]
        if next(combiner.tree_combinations(choices, whole), None) is not None:
            continue
        for key, relaxed_problem in relaxed.items():
            if next(combiner.tree_combinations(choices, relaxed_problem), None) is not None:
                removed[key].append(root)
                break
        else:
            removed["combined"].append(root)
    left = len(alive)
    texts = {
        "group_policy": ("group_policy=isolate", "group_policy",
                         "the suffixed groups can only be met by sharing a provider"),
        "same_subtree": ("same_subtree=" + ";".join(",".join(x) for x in ctx.request.same_subtree),
                         "same_subtree", None),  # per tree: _same_subtree_reason
        "combined": ("resources", "combined_capacity",
                     "the groups together ask more than one provider's free capacity "
                     "or max_unit"),
    }
    for key in ("group_policy", "same_subtree", "combined"):
        roots = removed[key]
        if not roots:
            continue
        left -= len(roots)
        constraint, kind, reason = texts[key]
        steps.append(Step(constraint, kind, len(roots),
                          [Removed(ctx.providers[r].uuid, names[r],
                                   reason or _same_subtree_reason(ctx, per_group, r, names))
                           for r in roots[:show]],
                          left))
    return steps, left


def _same_subtree_reason(ctx, per_group, root, names) -> str:
    """Why tree ``root`` fails same_subtree: every provider is under the root,
    but the rule wants one of the named groups' own providers above (or the
    same as) all the others; name the providers each group could use."""
    index = {g.spec.suffix: i for i, g in enumerate(ctx.groups)}
    parts = []
    for suffixes in ctx.request.same_subtree:
        for suffix in suffixes:
            if suffix not in index:
                continue
            used = sorted({names[p] for choice in per_group[index[suffix]][root]
                           for p in choice.providers})
            more = f" and {len(used) - 3} more" if len(used) > 3 else ""
            parts.append(f"{suffix}: {', '.join(used[:3])}{more}")
    return (f"in tree {names[root]}, none of the providers the groups could use is an "
            f"ancestor (or the same) of the others, as same_subtree needs "
            f"({'; '.join(parts)})")


def _verdict(found, groups, steps) -> str:
    if found:
        return f"{found} allocation request(s) found."
    for g in groups:
        if not g.trees_left:
            label = f"group '{g.suffix}'" if g.suffix else "the unsuffixed group"
            closest = (f"; closest: {g.closest[0].name} ({g.closest[0].failed[0]})"
                       if g.closest else "")
            return f"No candidates: no tree can meet {label}{closest}."
    if steps:
        return (f"No candidates: every tree left was removed by {steps[-1].constraint} "
                f"({steps[-1].kind}).")
    return "No candidates."
