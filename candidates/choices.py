"""The ways each request group can be met, one tree at a time.

For a tree, each group gets a list of ``combiner.Choice``: a suffixed group
one provider alone, the unsuffixed group one able provider per class from
the tree and the sharing providers that reach it, judged on the union of
their traits. :class:`Trees` works them out in root order as the search
asks; :func:`choices_by_root`, :func:`usable_roots` and :func:`problem`
serve the explainer, which looks at every tree rather than stopping at a
limit.
"""
from __future__ import annotations

from itertools import product
from math import prod

from django.conf import settings

from candidates import combiner, paging
from candidates.context import (
    ResolvedGroup,
    SearchContext,
    TreeProvider,
    load_batch,
    load_trees,
)
from placement_core import errors
from providers.models import unit_ok


def amount_fits(entry, amount) -> bool:
    """One allocation of ``amount`` from an inventory ``entry`` of
    ``SearchContext.inventory``: its units and the capacity left."""
    capacity, used, min_unit, max_unit, step = entry
    return used + amount <= capacity and unit_ok(amount, min_unit, max_unit, step)


# Loops rather than all() over a generator: these run once a provider or a
# tree, and creating the generator costs more than the test. For the same
# reason the per-tree builders of Trees fill lists in loops rather than
# comprehensions (on Python 3.11 a comprehension is a function call of its
# own) and build a choice's allocs as its classes are checked.


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
    filter (:meth:`Trees._usable`); without one every provider of the pool
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


def anchors(ctx: SearchContext, rp: int, p: TreeProvider) -> set:
    """The trees a provider's resources can serve: its own, and for a sharing
    provider every tree it reaches."""
    anchors = {p.root_id}
    if rp in ctx.sharing:
        anchors |= ctx.reaches.get(rp, set())
    return anchors


class _Group:
    """What is fixed for the whole request about how one group is met,
    worked out once rather than once a tree."""

    __slots__ = ("group", "wanted", "filtered", "placed", "judged", "usable", "build")

    def __init__(self, group: ResolvedGroup):
        self.group = group
        self.wanted = sorted(group.resources.items())  # (class, amount) pairs, by class id
        self.filtered = _filters(group)  # whether the spread group filters its pool
        self.placed = _placed(group)  # whether ``in_tree`` or ``member_of`` apply
        self.judged = bool(group.required or group.forbidden)  # whether traits are judged
        self.usable = {}  # provider -> passes the spread group's filters, as found
        # How the group is met in a tree of several providers (a function,
        # not a bound method: no cycle through the Trees).
        self.build = Trees._single if group.spec.use_same_provider else Trees._spread


class Trees:
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
        self.groups = [_Group(g) for g in ctx.groups]  # in the request's order
        request = ctx.request
        self.root_judged = bool(request.root_required or request.root_forbidden)
        # Every pick of one provider per class is a placement too: the same bound.
        self.picks = 0
        self.work_limit = settings.PLACEMENT_CANDIDATE_WORK_LIMIT

    def roots(self) -> list:
        return sorted(self.members)

    def add(self, provider_ids) -> None:
        """Providers just loaded (whole trees) join their trees' pools."""
        providers, members = self.ctx.providers, self.members
        # The loaders give their providers in id order: a tree whose list
        # only grows at its end stays sorted, and only the others are sorted.
        unsorted = set()
        for pid in provider_ids:
            root = providers[pid].root_id
            listed = members.get(root)
            if listed is None:
                members[root] = [pid]
            else:
                if pid < listed[-1]:
                    unsorted.add(root)
                listed.append(pid)
        for root in unsorted:
            members[root].sort()

    def load(self, smallest: dict, page: int | None, produced=None):
        """Load the trees and yield their roots in order: all at once, or
        (``page`` set: a search stopping at that many candidates) only the
        trees that may serve (``candidates.paging``), a batch at a time, so
        that the search reads about as many trees as its answer needs.
        ``produced()``: how many candidates the search has so far."""
        if page is None:
            self.add(load_trees(self.ctx, smallest))
            yield from self.roots()
            return
        ctx = self.ctx
        wanted, sharing = paging.needs(ctx, smallest, ctx.shares)
        if wanted is None:
            return
        for batch in paging.batches(paging.serving_roots(smallest, wanted), produced, page):
            reaches, added = load_batch(ctx, smallest, sharing, batch)
            for rp, roots in reaches.items():
                for root in roots:
                    self.shared_into.setdefault(root, set()).add(rp)
            self.add(added)
            yield from (root for root in batch if root in self.members)

    def pool(self, root) -> list:
        members = self.members.get(root, [])
        shared = self.shared_into.get(root)
        return sorted(shared.union(members)) if shared else members

    def root_ok(self, root) -> bool:
        """``root_required`` (and its forbidden traits) on the tree's root."""
        if not self.root_judged:
            return True
        request = self.ctx.request
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
        (way,) = [way for way in self.groups if way.group is group]
        if len(pool) == 1:
            return self._alone(way, pool[0])
        return way.build(self, way, root, holders)

    def tree(self, root):
        """One choice list per group for tree ``root``, or None when the
        tree cannot serve the request."""
        if self.root_judged and not self.root_ok(root):
            return None
        pool = self.pool(root)
        lists = []
        if len(pool) == 1:
            for way in self.groups:
                options = self._alone(way, pool[0])
                if not options:
                    return None
                lists.append(options)
            return lists
        holders = self.holders(pool)
        for way in self.groups:
            options = way.build(self, way, root, holders)
            if not options:
                return None
            lists.append(options)
        return lists

    def _alone(self, way: _Group, rp: int) -> list:
        """A tree of one provider that no sharing provider reaches (every
        tree of a flat cloud): the group takes that provider or nothing. A
        suffixed and the unsuffixed group judge it alike there, as the one
        provider is the root (whose aggregates are the tree's) and the
        union of the traits used is its own; the unsuffixed group cannot
        come without resources (the parser refuses it)."""
        inventory, group, wanted = self.ctx.inventory, way.group, way.wanted
        allocs = []
        for rc, amount in wanted:
            entry = inventory.get((rp, rc))
            if entry is None or not amount_fits(entry, amount):
                return []
            allocs.append((rp, rc, amount))
        p = self.ctx.providers[rp]
        if way.placed and not _placement_ok(self.ctx, group, p, spans_tree=True):
            return []
        if way.judged and not _traits_ok(p.traits, group.required, group.forbidden):
            return []
        if not group.spec.use_same_provider:
            self._count_picks(1)
        return [combiner.new_choice(((rp,), tuple(allocs)))]

    def _single(self, way: _Group, root, holders: dict) -> list:
        """A suffixed group, met by one provider alone: one of those holding
        its first class, with inventory checks before the costlier
        placement and trait checks."""
        ctx, group, wanted = self.ctx, way.group, way.wanted
        inventory = ctx.inventory
        out = []
        # A group without resources may use any provider of the tree itself.
        for rp in holders.get(wanted[0][0], ()) if wanted else self.members.get(root, []):
            allocs = []
            for rc, amount in wanted:
                entry = inventory.get((rp, rc))
                if entry is None or not amount_fits(entry, amount):
                    break
                allocs.append((rp, rc, amount))
            else:
                p = ctx.providers[rp]
                if way.placed and not _placement_ok(ctx, group, p, spans_tree=False):
                    continue
                if way.judged and not _traits_ok(p.traits, group.required, group.forbidden):
                    continue
                out.append(combiner.new_choice(((rp,), tuple(allocs))))
        return out

    def _usable(self, way: _Group, rp: int) -> bool:
        """The spread group's tree, aggregate and forbidden-trait filters."""
        ok = way.usable.get(rp)
        if ok is None:
            p, group = self.ctx.providers[rp], way.group
            ok = way.usable[rp] = _placement_ok(self.ctx, group, p, spans_tree=True) and not (
                group.forbidden and p.traits & group.forbidden)
        return ok

    def _count_picks(self, picks: int) -> None:
        self.picks += picks
        if 0 <= self.work_limit < self.picks:
            raise combiner.TooMuchWork(self.picks)

    def _spread(self, way: _Group, root, holders: dict) -> list:
        """The unsuffixed group: every pick of one able provider per class
        in the tree's pool, judged on the union of their traits."""
        ctx, group, wanted = self.ctx, way.group, way.wanted
        inventory = ctx.inventory
        options = []
        for rc, amount in wanted:
            able = []
            for rp in holders.get(rc, ()):
                if amount_fits(inventory[(rp, rc)], amount) and (
                        not way.filtered or self._usable(way, rp)):
                    able.append(rp)
            if not able:
                return []
            options.append(able)
        self._count_picks(prod(map(len, options)))
        providers = ctx.providers
        out = []
        if len(wanted) == 1:
            # One class (the nested perfload request's disk): each able
            # provider is a pick of its own, judged on its own traits, with
            # no product, set or sort.
            ((rc, amount),), (able,) = wanted, options
            for rp in able:
                if group.required and not _traits_ok(providers[rp].traits, group.required, ()):
                    continue
                out.append(combiner.new_choice(((rp,), ((rp, rc, amount),))))
            return out
        for pick in product(*options):
            used = set(pick)
            if group.required:
                # Read, not changed: one provider's own set needs no copy.
                if len(used) == 1:
                    traits = providers[pick[0]].traits
                else:
                    traits = set()
                    for rp in used:
                        traits |= providers[rp].traits
                if not _traits_ok(traits, group.required, ()):
                    continue
            allocs = []
            for rp, (rc, amount) in zip(pick, wanted):
                allocs.append((rp, rc, amount))
            out.append(combiner.new_choice((
                (pick[0],) if len(used) == 1 else tuple(sorted(used)),
                tuple(allocs),
            )))
        return out


# The whole cloud at once, for the explainer (candidates.explain), which
# reports on every tree rather than stopping at a limit.


def choices_by_root(ctx: SearchContext, group: ResolvedGroup) -> dict:
    """{root: [Choice]}: the trees where ``group`` alone can be met, and how."""
    trees = Trees(ctx)
    found = {}
    for root in trees.roots():
        pool = trees.pool(root)
        if choices := trees.choices(group, root, pool, trees.holders(pool)):
            found[root] = choices
    return found


def usable_roots(ctx: SearchContext, per_group: list) -> list:
    """Trees every group can use, whose root passes ``root_required``; sorted."""
    roots = set(per_group[0])
    for choices_by_root in per_group[1:]:
        roots &= set(choices_by_root)
    trees = Trees(ctx)
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


def problem(ctx: SearchContext, max_placements: int = -1) -> combiner.Problem:
    """What the combiner checks a combination against, beyond its choices."""
    suffix_index = {g.spec.suffix: i for i, g in enumerate(ctx.groups)}
    providers = ctx.providers

    def ancestors(pid):
        chain, node = {pid}, providers[pid]
        while node.parent_id is not None and node.parent_id in providers:
            if node.parent_id in chain:
                # Only rows written behind the API's back can loop; the
                # walk would never end.
                raise errors.Conflict(
                    f"The provider tree of {providers[pid].uuid} has a parent cycle; "
                    "run manage.py audit_allocations to find it.")
            node = providers[node.parent_id]
            chain.add(node.id)
        return frozenset(chain)

    isolate = ctx.request.group_policy == "isolate"
    asked = [cid for g in ctx.groups for cid in g.resources]  # a class twice: two groups
    return combiner.Problem(
        capacity=ctx.free,
        isolated_groups=[bool(g.spec.use_same_provider and isolate) for g in ctx.groups],
        same_subtree=[[suffix_index[s] for s in sfx] for sfx in ctx.request.same_subtree],
        ancestors=_Lazy(ancestors),
        root_of=_Lazy(lambda pid: providers[pid].root_id),
        sharing=ctx.sharing,
        nested_aware=ctx.nested_aware,
        classes_shared=len(set(asked)) < len(asked),
        max_placements=max_placements,
    )
