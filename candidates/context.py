"""What one candidates search works on, and the loaders that fill it.

A ``SearchContext`` holds the request with its names resolved to ids
(:func:`resolve`) and what the search read: inventories with their usage,
the providers of the trees in play with their traits and aggregates, and
the sharing providers with the trees they reach. The loaders read through
``candidates.sql``, a fixed number of statements whatever the cloud's size.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import os_traits

from candidates import sql
from placement_core import errors
from placement_core.querystring import CandidateRequest, RequestGroup
from providers.models import capacity_of

SHARES_TRAIT = os_traits.MISC_SHARES_VIA_AGGREGATE


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
    # Ids of every provider with the sharing trait, able to serve or not, ascending.
    shares: list = field(default_factory=list)
    sharing: set = field(default_factory=set)  # sharing provider ids (able to serve)
    # Sharing providers whose inventories were read, able to serve or not
    # (a limited search reads them as the trees they reach come up).
    probed: set = field(default_factory=set)
    reaches: dict = field(default_factory=dict)  # sharing provider -> root ids
    providers: dict = field(default_factory=dict)  # id -> TreeProvider
    trait_names: dict = field(default_factory=dict)  # id -> name, of the providers' traits

    @property
    def nested_aware(self) -> bool:
        return self.request.version >= (1, 29)


def resolve(request: CandidateRequest) -> SearchContext:
    """Class, trait and in_tree names -> ids (400 for unknown classes and
    traits), with the providers holding the sharing trait: one statement."""
    class_names = sorted({name for g in request.groups for name in g.resources})
    wanted = set(request.root_required) | request.root_forbidden
    for g in request.groups:
        wanted |= g.required.names()
    in_trees = {g.in_tree for g in request.groups if g.in_tree}
    # The sharing trait is looked up with the requested ones.
    found = sql.names(class_names, wanted | {SHARES_TRAIT}, in_trees, SHARES_TRAIT)
    classes, traits, roots = found.class_ids, found.trait_ids, found.roots
    missing = [n for n in class_names if n not in classes]
    if missing:
        raise errors.BadRequest(
            "Invalid resource class in resources parameter: No such resource class "
            f"{missing[0]}."
        )
    missing = sorted(n for n in wanted if n not in traits)
    if missing:
        raise errors.BadRequest(f"No such trait(s): {', '.join(missing)}")
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
        shares=found.holders,
    )


def smallest_amounts(ctx: SearchContext) -> dict:
    """{class id: the smallest amount any group asks of it}: inventories that
    cannot give even that are left in the database."""
    smallest = {}
    for g in ctx.groups:
        for cid, amount in g.resources.items():
            smallest[cid] = min(amount, smallest.get(cid, amount))
    return smallest


def add_inventory(ctx: SearchContext, rows, smallest=None) -> set:
    """File inventory rows (Q1's shape) for the search; returns the
    providers that got one. With ``smallest``, the rows are every inventory
    of their providers (Q1b): all are kept for the summaries
    (``ctx.read``), and only those that can give the smallest amount asked
    of their class (Q1's test, here in Python) for the search."""
    inventory, free, ids = ctx.inventory, ctx.free, ctx.inventory_ids
    classes_of, read, unnamed = ctx.classes_of, ctx.read, ctx.unnamed
    filed = set()
    # Locals and no allocation for a row left out: Q1b gives a row for every
    # inventory of thousands of providers.
    for rp, rc, total, reserved, min_unit, max_unit, step, ratio, used, inv_id in rows:
        capacity = capacity_of(total, reserved, ratio)
        used = int(used)
        if smallest is not None:
            entries = read.get(rp)
            if entries is None:
                read[rp] = [(inv_id, rc, capacity, used)]
            else:
                entries.append((inv_id, rc, capacity, used))
            amount = smallest.get(rc)
            if amount is None:
                unnamed.add(rc)
                continue
            if max_unit < amount or capacity - used < amount:
                continue
        key = (rp, rc)
        if key not in inventory:
            known = classes_of.get(rp)
            if known is None:
                classes_of[rp] = [rc]
            else:
                known.append(rc)
        inventory[key] = (capacity, used, min_unit, max_unit, step)
        free[key] = (capacity - used, max_unit)
        ids[key] = inv_id
        filed.add(rp)
    return filed


def add_providers(ctx: SearchContext, rows) -> list:
    """Keep the providers not loaded yet, with their traits and those
    traits' names (and aggregates when a group asks for ``member_of``);
    returns their ids."""
    providers = ctx.providers
    new = []
    for pid, uuid, parent, root in rows:
        if pid not in providers:
            providers[pid] = TreeProvider(pid, uuid, parent, root)
            new.append(pid)
    if not new:
        return new
    new.sort()
    names = ctx.trait_names
    for pid, tid, name in sql.provider_traits(new):
        providers[pid].traits.add(tid)
        names[tid] = name
    if any(g.spec.member_of.any_of or g.spec.member_of.forbidden for g in ctx.groups):
        for pid, agg in sql.provider_aggregates(new):
            providers[pid].aggs.add(agg)
    return new


def load_sharing(ctx: SearchContext, smallest: dict) -> None:
    """The sharing providers able to serve, the trees they reach and their own
    trees, before any tree: every tree may draw on them."""
    if not ctx.shares:
        return
    rows = sql.usable_inventories(smallest, ctx.shares)
    ctx.sharing = {row[0] for row in rows}
    if not ctx.sharing:
        return
    add_inventory(ctx, rows)
    ctx.reaches = sql.trees_reached(ctx.sharing)
    add_providers(ctx, sql.tree_providers(sorted(ctx.sharing), []))


def load_batch(ctx: SearchContext, smallest: dict, sharing: list, roots: list) -> tuple:
    """A batch of trees chosen by ``candidates.paging`` (``roots``), with
    the providers of ``sharing`` (those with the sharing trait that hold a
    requested class, ``paging.needs``) that reach them: which do (Q3 for
    the batch), every inventory of those not read yet, the batch's
    providers and those sharing providers' own trees in one read (Q4),
    then every inventory of the batch's providers (Q1b: all their
    summaries need too). Keeps the trees with an inventory able to serve
    or reached by a sharing provider able to serve. Returns
    ({able sharing provider: roots of the batch it reaches}, providers added)."""
    pairs = sql.trees_reached(sharing, roots) if sharing else {}
    new = sorted(set(pairs) - ctx.probed)
    able = set()
    if new:
        ctx.probed.update(new)
        ctx.complete.update(new)
        able = add_inventory(ctx, sql.provider_inventories(new), smallest)
        ctx.sharing |= able
    reaches = {}
    for rp, reached in pairs.items():
        if rp in ctx.sharing:
            ctx.reaches.setdefault(rp, set()).update(reached)
            reaches[rp] = reached
    members = sql.tree_providers(sorted(able), roots)
    batch = set(roots)
    unread = [row[0] for row in members if row[3] in batch and row[0] not in ctx.complete]
    rows = sql.provider_inventories(unread) if unread else []
    ctx.complete.update(unread)
    # The sharing providers' own trees, whole, and the batch's trees that
    # can serve or that one of them reaches.
    wanted = _roots_of(members, able)
    wanted |= {root for roots_ in reaches.values() for root in roots_}
    wanted |= _roots_of(members, add_inventory(ctx, rows, smallest))
    return reaches, add_providers(ctx, [row for row in members if row[3] in wanted])


def load_trees(ctx: SearchContext, smallest: dict) -> list:
    """Every tree: the inventories able to serve, and every provider of the
    trees that have one or that a sharing provider reaches, less the trees
    that lack a required trait (:func:`_trait_sets`). Returns the
    providers added."""
    reached = {root for roots in ctx.reaches.values() for root in roots}
    sets = _trait_sets(ctx)
    if not sets:
        rows = sql.usable_inventories(smallest)
        holders = sorted({row[0] for row in rows})
        members = sql.tree_providers(holders, sorted(reached))
        add_inventory(ctx, rows)
        return add_providers(ctx, members)
    # The trees holding the required traits are known before their
    # inventories: read their providers first, then all of those
    # providers' inventories, and no others (with the trait, on the perfload
    # cloud half the rows an unscoped Q1 reads, and its usage sums), which
    # is also all their summaries need. No sharing provider is in play with
    # a trait filter: none reached.
    members = sql.trees_holding(sets)
    ids = [row[0] for row in members]
    rows = sql.provider_inventories(ids) if ids else []
    ctx.complete.update(ids)
    # Filed once: in the comprehension's condition it ran once per member.
    serving = _roots_of(members, add_inventory(ctx, rows, smallest))
    return add_providers(ctx, [row for row in members if row[3] in serving])


def _trait_sets(ctx: SearchContext) -> list:
    """The required trait sets of every group, in a fixed order: only a
    tree holding, for each, a provider with one of its traits can serve
    (none: every tree may).

    Whichever group asks for a set, some provider of the tree meets it (a
    suffixed group's one provider, or one of those the unsuffixed group
    spreads over), so a tree without one cannot serve and is not loaded or
    judged (on the perfload cloud, half the trees). Sharing providers can
    bring a trait from outside the tree: with any in play, all trees stay."""
    if ctx.sharing:
        return []
    return sorted({any_of for g in ctx.groups for any_of in g.required}, key=sorted)


def _roots_of(members, provider_ids) -> set:
    return {root for pid, _, _, root in members if pid in provider_ids}
