"""The allocation-candidate engine: a CandidateRequest in, a CandidateResult out.

No HTTP and no JSON here: the API view (``allocations.api.candidates_views``)
parses the query with ``placement_site.querystring``, calls
:func:`find_candidates` and renders the result; the console's explainer
calls the same function.

The search, in a fixed number of SQL statements (``allocations.engine_sql``)
whatever the number of providers (a few more per page of roots when a
limit applies): load the sharing providers and the trees they reach, then
the inventories that can serve a requested amount and the trees' providers
with their traits and aggregates; build, per tree and per group, the ways
the group can be met (``combiner.Choice``) and let ``allocations.combiner``
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
from itertools import product
from math import prod
from typing import NamedTuple

import os_traits
from django.conf import settings

from allocations import combiner, engine_sql as sql
from placement_site import errors
from placement_site.querystring import CandidateRequest, RequestGroup
from providers.models import capacity_of, unit_ok

SHARES_TRAIT = os_traits.MISC_SHARES_VIA_AGGREGATE


# -- What comes out ---------------------------------------------------------------


class AllocationRequest(NamedTuple):
    """One candidate: {provider uuid: {class name: amount}} and, per group
    suffix, the uuids of the providers that group uses. A named tuple, like
    ProviderSummary: a large answer builds thousands."""

    allocations: dict
    mappings: dict


class ProviderSummary(NamedTuple):
    """A named tuple, like combiner.Choice: a nested answer builds 7,000."""

    uuid: str
    resources: dict  # class name -> {"capacity": int, "used": int}
    traits: list  # names, by trait id ([] unless the request's version shows them)
    parent_uuid: str | None
    root_uuid: str


@dataclass
class CandidateResult:
    allocation_requests: list = field(default_factory=list)
    provider_summaries: list = field(default_factory=list)  # by provider id


# -- What the search works on -------------------------------------------------------


@dataclass(slots=True)
class TreeProvider:
    id: int
    uuid: str
    parent_id: int | None
    root_id: int
    traits: set = field(default_factory=set)  # trait ids
    aggs: set = field(default_factory=set)  # canonical aggregate uuids


@dataclass
class ResolvedGroup:
    """A RequestGroup with its names resolved to ids."""

    spec: RequestGroup
    resources: dict  # class id -> amount
    required: list  # frozensets of trait ids, one of each needed
    forbidden: set  # trait ids
    in_tree_root: int | None  # root id, -1 when the provider does not exist


@dataclass
class SearchContext:
    """Everything loaded for one search."""

    request: CandidateRequest
    groups: list  # of ResolvedGroup
    class_names: dict  # class id -> name
    trait_ids: dict  # name -> id
    # (provider, class) -> (capacity, used, min_unit, max_unit, step_size)
    inventory: dict = field(default_factory=dict)
    inventory_ids: dict = field(default_factory=dict)  # (provider, class) -> inventory id
    # (provider, class) -> (free capacity, max_unit): what the combiner checks
    # a combination against, kept beside ``inventory`` as it loads.
    free: dict = field(default_factory=dict)
    classes_of: dict = field(default_factory=dict)  # provider id -> [class ids]
    # Providers whose every inventory was read (Q1b), and those rows in the
    # shape a summary takes them: provider -> [(inventory id, class,
    # capacity, used)], usable or not; and the classes among them that no
    # group asks for, whose names the summaries look up.
    complete: set = field(default_factory=set)
    read: dict = field(default_factory=dict)
    unnamed: set = field(default_factory=set)
    sharing: set = field(default_factory=set)  # sharing provider ids
    reaches: dict = field(default_factory=dict)  # sharing provider -> root ids
    providers: dict = field(default_factory=dict)  # id -> TreeProvider

    @property
    def nested_aware(self) -> bool:
        return self.request.version >= (1, 29)


# -- The search ---------------------------------------------------------------------


def find_candidates(request: CandidateRequest) -> CandidateResult:
    """The allocation requests and provider summaries answering ``request``."""
    ctx = _resolve(request)
    smallest = _smallest_amounts(ctx)
    if not smallest:
        return CandidateResult()
    try:
        _load_sharing(ctx, smallest)
        found = _search(ctx, smallest)
    except combiner.TooMuchWork:
        # A few granular groups over a wide tree multiply into hundreds of
        # thousands of candidates (8 groups of VCPU:1 over 8 NUMA cells:
        # 8**8): refuse such a request before it holds a worker and its memory.
        limit = settings.PLACEMENT_CANDIDATE_WORK_LIMIT
        raise errors.BadRequest(
            f"The request would combine more than {limit} provider choices; narrow it "
            "(fewer or less general request groups, group_policy=isolate, limit) or "
            "raise [placement] candidate_work_limit.",
            code=errors.QUERY_TOO_MUCH_WORK,
        ) from None
    return CandidateResult(
        allocation_requests=[_allocation_request(ctx, combo) for combo in found],
        provider_summaries=_summaries(ctx, found),
    )


def _resolve(request: CandidateRequest) -> SearchContext:
    """Class, trait and in_tree names -> ids (400 for unknown classes and traits)."""
    class_names = sorted({name for g in request.groups for name in g.resources})
    classes = sql.class_ids(class_names)
    missing = [n for n in class_names if n not in classes]
    if missing:
        raise errors.BadRequest(
            "Invalid resource class in resources parameter: No such resource class "
            f"{missing[0]}."
        )
    wanted = set(request.root_required) | request.root_forbidden
    for g in request.groups:
        wanted |= g.required.names()
    # The sharing trait is looked up with the requested ones (same query).
    traits = sql.trait_ids(wanted | {SHARES_TRAIT})
    missing = sorted(n for n in wanted if n not in traits)
    if missing:
        raise errors.BadRequest(f"No such trait(s): {', '.join(missing)}")
    in_trees = {g.in_tree for g in request.groups if g.in_tree}
    roots = sql.root_ids(in_trees) if in_trees else {}
    groups = [
        ResolvedGroup(
            spec=g,
            resources={classes[name]: amount for name, amount in g.resources.items()},
            required=[frozenset(traits[n] for n in s) for s in g.required.any_of],
            forbidden={traits[n] for n in g.required.forbidden},
            in_tree_root=(roots.get(g.in_tree, -1) if g.in_tree else None),
        )
        for g in request.groups
    ]
    return SearchContext(
        request=request,
        groups=groups,
        class_names={cid: name for name, cid in classes.items()},
        trait_ids=traits,
    )


def _smallest_amounts(ctx: SearchContext) -> dict:
    """{class id: the smallest amount any group asks of it}: inventories that
    cannot give even that are left in the database."""
    smallest = {}
    for g in ctx.groups:
        for cid, amount in g.resources.items():
            smallest[cid] = min(amount, smallest.get(cid, amount))
    return smallest


def _add_inventory(ctx: SearchContext, rows, smallest=None) -> set:
    """File inventory rows (Q1's shape) for the search; returns the
    providers that got one. With ``smallest``, the rows are every inventory
    of their providers (Q1b): all are kept for the summaries
    (``ctx.read``), and only those that can give the smallest amount asked
    of their class (Q1's test, here in Python) for the search."""
    inventory, free, ids = ctx.inventory, ctx.free, ctx.inventory_ids
    classes_of, read = ctx.classes_of, ctx.read
    filed = set()
    for rp, rc, total, reserved, min_unit, max_unit, step, ratio, used, inv_id in rows:
        key = (rp, rc)
        capacity, used = capacity_of(total, reserved, ratio), int(used)
        if smallest is not None:
            entries = read.get(rp)
            if entries is None:
                read[rp] = [(inv_id, rc, capacity, used)]
            else:
                entries.append((inv_id, rc, capacity, used))
            amount = smallest.get(rc)
            if amount is None:
                ctx.unnamed.add(rc)
                continue
            if max_unit < amount or capacity - used < amount:
                continue
        if key not in inventory:
            classes_of.setdefault(rp, []).append(rc)
        inventory[key] = (capacity, used, min_unit, max_unit, step)
        free[key] = (capacity - used, max_unit)
        ids[key] = inv_id
        filed.add(rp)
    return filed


def _add_providers(ctx: SearchContext, rows) -> list:
    """Keep the providers not loaded yet, with their traits (and aggregates
    when a group asks for ``member_of``); returns their ids."""
    new = []
    for pid, uuid, parent, root in rows:
        if pid not in ctx.providers:
            ctx.providers[pid] = TreeProvider(pid, uuid, parent, root)
            new.append(pid)
    if not new:
        return new
    new.sort()
    for pid, tid in sql.provider_trait_ids(new):
        ctx.providers[pid].traits.add(tid)
    if any(g.spec.member_of.any_of or g.spec.member_of.forbidden for g in ctx.groups):
        for pid, agg in sql.provider_aggregates(new):
            ctx.providers[pid].aggs.add(agg)
    return new


def _load_sharing(ctx: SearchContext, smallest: dict) -> None:
    """The sharing providers able to serve, the trees they reach and their own
    trees, before any tree: every tree may draw on them."""
    shares_trait = ctx.trait_ids.get(SHARES_TRAIT)
    if shares_trait is None:
        return
    sharing = sql.providers_with_trait(shares_trait)
    if not sharing:
        return
    rows = sql.usable_inventories(smallest, sharing)
    ctx.sharing = {row[0] for row in rows}
    if not ctx.sharing:
        return
    _add_inventory(ctx, rows)
    ctx.reaches = sql.trees_reached(ctx.sharing)
    _add_providers(ctx, sql.tree_providers(sorted(ctx.sharing), []))


def _load_trees(ctx: SearchContext, smallest: dict, span=None) -> list:
    """The trees whose root id is in ``span`` (first, last), or all of them:
    the inventories able to serve, and every provider of the trees that have
    one or that a sharing provider reaches, less the trees that lack a
    required trait (:func:`_trait_roots`). Returns the providers added."""
    reached = {
        root for roots in ctx.reaches.values() for root in roots
        if span is None or span[0] <= root <= span[1]
    }
    allowed = _trait_roots(ctx, span)
    if span is None and allowed is None:
        rows = sql.usable_inventories(smallest)
        holders = sorted({row[0] for row in rows})
        members = sql.tree_providers(holders, sorted(reached))
        _add_inventory(ctx, rows)
        return _add_providers(ctx, members)
    # The trees are known before their inventories (a page of roots, or
    # every tree holding the required traits): read their providers first,
    # then all of those providers' inventories, and no others (with the
    # trait, on the perfload cloud half the rows an unscoped Q1 reads, and
    # its usage sums), which is also all their summaries need.
    if span is None:
        # No sharing provider is in play with a trait filter: none reached.
        members = sql.tree_providers([], sorted(allowed))
    else:
        members = sql.providers_of_roots(*span)
        if allowed is not None:
            members = [row for row in members if row[3] in allowed]
    ids = [row[0] for row in members]
    rows = sql.provider_inventories(ids) if ids else []
    ctx.complete.update(ids)
    wanted = reached | _roots_of(members, _add_inventory(ctx, rows, smallest))
    return _add_providers(ctx, [row for row in members if row[3] in wanted])


def _trait_roots(ctx: SearchContext, span=None) -> set | None:
    """The roots of the trees that hold, for every required trait set of
    every group, a provider with one of its traits (None: no such sets).

    Whichever group asks for a set, some provider of the tree meets it (a
    suffixed group's one provider, or one of those the unsuffixed group
    spreads over), so a tree without one cannot serve and is not loaded or
    judged (on the perfload cloud, half the trees). Sharing providers can
    bring a trait from outside the tree: with any in play, all trees stay."""
    if ctx.sharing:
        return None
    sets = {any_of for g in ctx.groups for any_of in g.required}
    allowed = None
    for any_of in sorted(sets, key=sorted):
        roots = sql.roots_holding(any_of, span)
        allowed = roots if allowed is None else allowed & roots
        if not allowed:
            break
    return allowed


def _roots_of(members, provider_ids) -> set:
    return {root for pid, _, _, root in members if pid in provider_ids}


def _amount_fits(entry, amount) -> bool:
    capacity, used, min_unit, max_unit, step = entry
    return unit_ok(amount, min_unit, max_unit, step) and used + amount <= capacity


# Loops rather than all() over a generator: these run once a provider or a
# tree, and creating the generator costs more than the test.


def _traits_ok(traits, required, forbidden) -> bool:
    for any_of in required:
        if traits.isdisjoint(any_of):
            return False
    return traits.isdisjoint(forbidden)


def _aggs_ok(aggs, member_of) -> bool:
    for any_of in member_of.any_of:
        if aggs.isdisjoint(any_of):
            return False
    return aggs.isdisjoint(member_of.forbidden)


def _filters(group: ResolvedGroup) -> bool:
    """Whether the spread group has a tree, aggregate or forbidden-trait
    filter (:meth:`_Trees._usable`); without one every provider of the pool
    is usable, and the per-provider check is skipped (the nested perfload
    request asks for none: 7 providers a tree)."""
    return _placed(group) or bool(group.forbidden)


def _placed(group: ResolvedGroup) -> bool:
    """Whether ``in_tree`` or ``member_of`` apply to the group (:func:`_placement_ok`)."""
    member_of = group.spec.member_of
    return bool(group.in_tree_root is not None or member_of.any_of or member_of.forbidden)


def _placement_ok(ctx: SearchContext, group: ResolvedGroup, p: TreeProvider, spans_tree) -> bool:
    """``in_tree`` and ``member_of`` of ``group`` for provider ``p``. In a
    group that spans its tree (the unsuffixed one) the root's aggregates
    count for the whole tree: ``p`` alone or its root alone must be in every
    listed aggregate set (as upstream: never some sets met by one and the
    rest by the other), and neither may be in a forbidden one."""
    if group.in_tree_root is not None and p.root_id != group.in_tree_root:
        return False
    member_of = group.spec.member_of
    if member_of.any_of or member_of.forbidden:
        root = ctx.providers.get(p.root_id) if spans_tree and p.parent_id is not None else None
        if root is None:
            return _aggs_ok(p.aggs, member_of)
        if not (p.aggs | root.aggs).isdisjoint(member_of.forbidden):
            return False
        return _in_every(p.aggs, member_of.any_of) or _in_every(root.aggs, member_of.any_of)
    return True


def _in_every(aggs, any_of_sets) -> bool:
    return all(not aggs.isdisjoint(any_of) for any_of in any_of_sets)


def _anchors(ctx: SearchContext, rp: int, p: TreeProvider) -> set:
    """The trees a provider's resources can serve: its own, and for a sharing
    provider every tree it reaches."""
    anchors = {p.root_id}
    if rp in ctx.sharing:
        anchors |= ctx.reaches.get(rp, set())
    return anchors


class _Trees:
    """The ways each group can be met, worked out one tree at a time.

    The search asks tree by tree in root order and stops at the limit, so a
    request with ``limit=1000`` over 10,000 trees works out about 1,000 of
    them. A tree's pool is its own providers and the sharing providers that
    reach it, by id; choices keep that order."""

    def __init__(self, ctx: SearchContext):
        self.ctx = ctx
        self.members = {}  # root -> provider ids of the tree, ascending
        for pid in sorted(ctx.providers):
            self.members.setdefault(ctx.providers[pid].root_id, []).append(pid)
        self.shared_into = {}  # root -> sharing providers reaching it
        for rp, roots in ctx.reaches.items():
            if rp in ctx.providers:
                for root in roots:
                    self.shared_into.setdefault(root, set()).add(rp)
        # Per group, worked out once rather than once a tree: its (class,
        # amount) pairs by class id, whether it filters its pool, whether
        # ``in_tree`` or ``member_of`` apply, and the providers found to pass
        # the filters so far.
        self.wanted = {id(g): sorted(g.resources.items()) for g in ctx.groups}
        self.filtered = {id(g): _filters(g) for g in ctx.groups}
        self.placed = {id(g): _placed(g) for g in ctx.groups}
        self.usable = {id(g): {} for g in ctx.groups}
        # Every pick of one provider per class is a placement too: the same bound.
        self.picks = 0
        self.work_limit = settings.PLACEMENT_CANDIDATE_WORK_LIMIT

    def roots(self) -> list:
        return sorted(self.members)

    def add(self, provider_ids) -> None:
        """Providers just loaded (whole trees) join their trees' pools."""
        touched = set()
        for pid in provider_ids:
            root = self.ctx.providers[pid].root_id
            self.members.setdefault(root, []).append(pid)
            touched.add(root)
        for root in touched:
            self.members[root].sort()

    def load(self, smallest: dict, page: int | None):
        """Load the trees and yield their roots in order: all at once, or
        (``page`` set) a page of roots at a time, pages doubling, so that a
        search stopping at a limit reads only the trees before that point."""
        if page is None:
            self.add(_load_trees(self.ctx, smallest))
            yield from self.roots()
            return
        after, size = 0, max(page, 50)
        while True:
            chunk = sql.next_roots(after, size)
            if not chunk:
                return
            self.add(_load_trees(self.ctx, smallest, (chunk[0], chunk[-1])))
            yield from (root for root in chunk if root in self.members)
            if len(chunk) < size:
                return  # a short page is the last: no statement to learn that
            after, size = chunk[-1], size * 2

    def pool(self, root) -> list:
        members = self.members.get(root, [])
        shared = self.shared_into.get(root)
        return sorted(shared.union(members)) if shared else members

    def root_ok(self, root) -> bool:
        """``root_required`` (and its forbidden traits) on the tree's root."""
        request = self.ctx.request
        if not (request.root_required or request.root_forbidden):
            return True
        p = self.ctx.providers.get(root)
        if p is None:
            return False
        ids = self.ctx.trait_ids
        return all(ids[n] in p.traits for n in request.root_required) and not any(
            ids[n] in p.traits for n in request.root_forbidden)

    def holders(self, pool) -> dict:
        """{class id: the providers of ``pool`` with an inventory of that
        class, ascending}, worked out once a tree: each group then looks
        only at the holders of its classes rather than at the whole pool (a
        nested perfload tree has 7 providers, and a group's class is on one
        to three of them)."""
        classes_of = self.ctx.classes_of
        out = {}
        for rp in pool:
            for rc in classes_of.get(rp, ()):
                found = out.get(rc)
                if found is None:
                    out[rc] = [rp]
                else:
                    found.append(rp)
        return out

    def choices(self, group: ResolvedGroup, root, pool: list, holders: dict | None) -> list:
        """The ways ``group`` can be met in tree ``root`` (its ``pool``; the
        ``holders`` of that pool, needed unless the pool is one provider)."""
        if len(pool) == 1:
            return self._alone(group, pool[0])
        if group.spec.use_same_provider:
            return self._single(group, root, holders)
        return self._spread(group, root, holders)

    def tree(self, root):
        """One choice list per group for tree ``root``, or None when the
        tree cannot serve the request."""
        if not self.root_ok(root):
            return None
        pool = self.pool(root)
        holders = self.holders(pool) if len(pool) > 1 else None
        lists = []
        for group in self.ctx.groups:
            options = self.choices(group, root, pool, holders)
            if not options:
                return None
            lists.append(options)
        return lists

    def _alone(self, group: ResolvedGroup, rp: int) -> list:
        """A tree of one provider that no sharing provider reaches (every
        tree of a flat cloud): the group takes that provider or nothing. A
        suffixed and the unsuffixed group judge it alike there, as the one
        provider is the root (whose aggregates are the tree's) and the
        union of the traits used is its own; the unsuffixed group cannot
        come without resources (the parser refuses it)."""
        inventory = self.ctx.inventory
        wanted = self.wanted[id(group)]
        for rc, amount in wanted:
            entry = inventory.get((rp, rc))
            if entry is None or not _amount_fits(entry, amount):
                return []
        p = self.ctx.providers[rp]
        if self.placed[id(group)] and not _placement_ok(self.ctx, group, p, spans_tree=True):
            return []
        if (group.required or group.forbidden) and not _traits_ok(
                p.traits, group.required, group.forbidden):
            return []
        if not group.spec.use_same_provider:
            self._count_picks(1)
        return [combiner.Choice((rp,), tuple([(rp, rc, amount) for rc, amount in wanted]))]

    def _single(self, group: ResolvedGroup, root, holders: dict) -> list:
        """A suffixed group, met by one provider alone: one of those holding
        its first class, with inventory checks before the costlier
        placement and trait checks."""
        ctx = self.ctx
        inventory = ctx.inventory
        wanted = self.wanted[id(group)]
        placed = self.placed[id(group)]
        traits = group.required or group.forbidden
        out = []
        # A group without resources may use any provider of the tree itself.
        for rp in holders.get(wanted[0][0], ()) if wanted else self.members.get(root, []):
            for rc, amount in wanted:
                entry = inventory.get((rp, rc))
                if entry is None or not _amount_fits(entry, amount):
                    break
            else:
                p = ctx.providers[rp]
                if placed and not _placement_ok(ctx, group, p, spans_tree=False):
                    continue
                if traits and not _traits_ok(p.traits, group.required, group.forbidden):
                    continue
                out.append(combiner.Choice((rp,), tuple((rp, rc, a) for rc, a in wanted)))
        return out

    def _usable(self, group: ResolvedGroup, rp: int) -> bool:
        """The spread group's tree, aggregate and forbidden-trait filters."""
        cache = self.usable[id(group)]
        ok = cache.get(rp)
        if ok is None:
            p = self.ctx.providers[rp]
            ok = cache[rp] = _placement_ok(self.ctx, group, p, spans_tree=True) and not (
                group.forbidden and p.traits & group.forbidden)
        return ok

    def _count_picks(self, picks: int) -> None:
        self.picks += picks
        if 0 <= self.work_limit < self.picks:
            raise combiner.TooMuchWork(self.picks)

    def _spread(self, group: ResolvedGroup, root, holders: dict) -> list:
        """The unsuffixed group: every pick of one able provider per class
        in the tree's pool, judged on the union of their traits."""
        ctx = self.ctx
        inventory = ctx.inventory
        filtered = self.filtered[id(group)]
        wanted = self.wanted[id(group)]
        options = []
        for rc, amount in wanted:
            able = [rp for rp in holders.get(rc, ())
                    if _amount_fits(inventory[(rp, rc)], amount)
                    and (not filtered or self._usable(group, rp))]
            if not able:
                return []
            options.append(able)
        self._count_picks(prod(len(o) for o in options))
        out = []
        for pick in product(*options):
            used = set(pick)
            if group.required:
                traits = set().union(*(ctx.providers[rp].traits for rp in used))
                if not _traits_ok(traits, group.required, set()):
                    continue
            out.append(combiner.Choice(
                tuple(sorted(used)),
                tuple((rp, rc, amount) for rp, (rc, amount) in zip(pick, wanted)),
            ))
        return out


# The whole cloud at once, for the explainer (allocations.explain), which
# reports on every tree rather than stopping at a limit.


def _choices_by_root(ctx: SearchContext, group: ResolvedGroup) -> dict:
    """{root: [Choice]}: the trees where ``group`` alone can be met, and how."""
    trees = _Trees(ctx)
    found = {}
    for root in trees.roots():
        pool = trees.pool(root)
        if choices := trees.choices(group, root, pool, trees.holders(pool)):
            found[root] = choices
    return found


def _usable_roots(ctx: SearchContext, per_group: list) -> list:
    """Trees every group can use, whose root passes ``root_required``; sorted."""
    roots = set(per_group[0])
    for choices_by_root in per_group[1:]:
        roots &= set(choices_by_root)
    trees = _Trees(ctx)
    return sorted(r for r in roots if trees.root_ok(r))


class _Lazy(dict):
    """A dict whose missing entries ``make(key)`` works out and keeps: the
    combiner looks up only the providers of the trees it visits."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, key):
        value = self[key] = self.make(key)
        return value


def _problem(ctx: SearchContext, max_placements: int = -1) -> combiner.Problem:
    """What the combiner checks a combination against, beyond its choices."""
    suffix_index = {g.spec.suffix: i for i, g in enumerate(ctx.groups)}
    providers = ctx.providers

    def ancestors(pid):
        chain, node = {pid}, providers[pid]
        while node.parent_id is not None and node.parent_id in providers:
            node = providers[node.parent_id]
            chain.add(node.id)
        return frozenset(chain)

    isolate = ctx.request.group_policy == "isolate"
    return combiner.Problem(
        capacity=ctx.free,
        isolated_groups=[bool(g.spec.use_same_provider and isolate) for g in ctx.groups],
        same_subtree=[[suffix_index[s] for s in sfx] for sfx in ctx.request.same_subtree],
        ancestors=_Lazy(ancestors),
        root_of=_Lazy(lambda pid: providers[pid].root_id),
        sharing=frozenset(ctx.sharing),
        nested_aware=ctx.nested_aware,
        max_placements=max_placements,
    )


def _search(ctx: SearchContext, smallest: dict) -> list:
    """Load the trees and return the valid combinations (one Choice per
    group), capped and ordered as configured."""
    trees = _Trees(ctx)
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
    servable = (
        (root, lists) for root in trees.load(smallest, page)
        if (lists := trees.tree(root)) is not None
    )
    results = [
        combination
        for _, combination in combiner.combine(
            servable,
            _problem(ctx, settings.PLACEMENT_CANDIDATE_WORK_LIMIT),
            strategy=strategy,
            cap=cap,
        )
    ]
    if randomize:
        random.shuffle(results)
    if limit is not None:
        results = results[:limit]
    return results


# -- The result ---------------------------------------------------------------------


def _allocation_request(ctx: SearchContext, combination) -> AllocationRequest:
    providers, class_names = ctx.providers, ctx.class_names
    if len(combination) == 1:
        # One group (every candidate of a flat cloud): its allocs hold each
        # (provider, class) once, in class order, so there is nothing to add
        # up or sort.
        (choice,) = combination
        allocations = {}
        for rp, rc, amount in choice.allocs:
            uuid = providers[rp].uuid
            per = allocations.get(uuid)
            if per is None:
                allocations[uuid] = {class_names[rc]: amount}
            else:
                per[class_names[rc]] = amount
        return AllocationRequest(
            allocations, {ctx.groups[0].spec.suffix: _mapped(providers, choice.providers)})
    merged, mappings = {}, {}
    for group, choice in zip(ctx.groups, combination):
        for rp, rc, amount in choice.allocs:
            per = merged.get(rp)
            if per is None:
                merged[rp] = {rc: amount}
            else:
                per[rc] = per.get(rc, 0) + amount
        mappings[group.spec.suffix] = _mapped(providers, choice.providers)
    # Loops, not a comprehension in a comprehension (a function call per
    # provider); most providers give one class, which needs no sorting.
    allocations = {}
    for rp, res in merged.items():
        if len(res) == 1:
            ((rc, amount),) = res.items()
            allocations[providers[rp].uuid] = {class_names[rc]: amount}
        else:
            allocations[providers[rp].uuid] = {
                class_names[rc]: amount for rc, amount in sorted(res.items())}
    return AllocationRequest(allocations, mappings)


def _mapped(providers: dict, chosen: tuple) -> list:
    """The uuids of the providers a group uses, as its mapping lists them."""
    if len(chosen) == 1:  # every suffixed group
        return [providers[chosen[0]].uuid]
    return sorted(providers[p].uuid for p in chosen)


def _summaries(ctx: SearchContext, found: list) -> list:
    """Summaries of the providers the answer names: from 1.29 every provider
    of their trees, before only the providers used; before 1.27 only the
    requested classes."""
    version = ctx.request.version
    used = {rp for combination in found for choice in combination for rp in choice.providers}
    used |= {rp for combination in found for choice in combination for rp, _, _ in choice.allocs}
    if ctx.nested_aware:
        roots = {ctx.providers[p].root_id for p in used}
        ids = sorted(p.id for p in ctx.providers.values() if p.root_id in roots)
    else:
        ids = sorted(used)
    if not ids:
        return []
    all_classes = version >= (1, 27)
    requested = {cid for g in ctx.groups for cid in g.resources}
    # Per provider: [(inventory id, class id, capacity, used)]. Nothing the
    # search read is read again: the providers read whole (Q1b) have their
    # rows in ctx.read; for any other, those Q1 filed for the search are in
    # ctx.inventory and the rest (other classes, or too full to serve) come
    # from Q7.
    complete, read = ctx.complete, ctx.read
    class_names = dict(ctx.class_names)
    if ctx.unnamed and all_classes:
        class_names.update(sql.class_names(ctx.unnamed))
    unread = [pid for pid in ids if pid not in complete]
    rows = {pid: [] for pid in unread}
    if unread:
        inventory_ids = ctx.inventory_ids
        known = []  # what Q7 leaves out: a shorter statement to plan
        for key, loaded in ctx.inventory.items():
            entry = rows.get(key[0])
            if entry is not None:
                entry.append((inventory_ids[key], key[1], loaded[0], loaded[1]))
                known.append(inventory_ids[key])
        for inv_id, pid, name, rc, total, reserved, ratio, used_now in sql.summary_inventories(
                unread, sorted(known)):
            if all_classes or rc in requested:
                rows[pid].append((inv_id, rc, capacity_of(total, reserved, ratio), int(used_now)))
                class_names[rc] = name
    names = {}
    if version >= (1, 17):
        wanted = {t for pid in ids for t in ctx.providers[pid].traits}
        names = sql.trait_names(wanted) if wanted else {}
    providers = ctx.providers
    summaries = []
    # Plain loops: a comprehension is a function call, and a nested answer
    # has 7,000 summaries of one or two classes each.
    for pid in ids:
        if pid in complete:
            entries = read.get(pid, [])
            if not all_classes:
                entries = [e for e in entries if e[1] in requested]
        else:
            entries = rows[pid]
        if len(entries) > 1:
            entries.sort()  # in inventory order, as upstream lists them
        # In the shape the answer shows, so the renderer need not copy them.
        resources = {}
        for _, rc, capacity, used_now in entries:
            resources[class_names[rc]] = {"capacity": capacity, "used": used_now}
        p = providers[pid]
        parent = providers.get(p.parent_id)
        summaries.append(ProviderSummary(
            p.uuid,
            resources,
            [names[t] for t in sorted(p.traits)] if names and p.traits else [],
            parent.uuid if parent else None,
            providers[p.root_id].uuid,
        ))
    return summaries
