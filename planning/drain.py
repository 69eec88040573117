"""Drain what-if: would the consumers on these providers fit on the rest of
the cloud, as it is now?  Reads, never writes.

What is drained: named providers with everything under them (a compute
node's root takes its NUMA cells and NICs along), whole trees, or every
tree with a provider in an aggregate.  The consumers that hold anything
there are moved in a simulation, largest first (each consumer's share of
the cloud's capacity, summed over its classes), each with the amounts it
holds now and in the same shape:

- what it holds on a root lands on the root of another tree;
- what it holds on a child lands on a child of another tree with the same
  resource classes in its inventory (a NUMA cell on a NUMA cell, a NIC on
  a NIC) and every ``CUSTOM_*`` trait of the source child (physnets,
  device kinds); two source children land on two different children;
- what it holds on a sharing provider that stays (a storage pool) stays,
  and the new tree must reach that provider through an aggregate; what it
  holds on a drained sharing provider lands on another sharing provider the
  new tree reaches.

A move in flight is one thing: its ``MIGRATION`` consumer (holding the
source) is not placed anywhere; what it holds is released, as the move's
end releases it, and it is listed with the instance it moves and where
that instance is (``planning.drain_moves``). An instance that holds a
drained tree moves like any consumer.

A consumer that holds anything in a drained tree leaves its whole tree
(everything it holds there moves, as a migration moves an instance), so
its usage there is released before anything lands; one that finds no
place stays where it is, and what it holds counts again in the usage
after (the fullest providers after the move).  Targets honour the
capacity rule of ``providers.models`` (reserved, allocation ratio, usage)
and ``unit_ok`` (min_unit, max_unit, step_size); a disabled tree (its root
carries ``COMPUTE_STATUS_DISABLED``: the one rule, the trait on a child
disables nothing, as for Nova's ``root_required``) is never a target, nor
is a drained provider.  Traits every target root must have, and an
aggregate the targets must be in, may be given (Placement does not know
what each instance asked for).

Each consumer goes to the first tree that takes it, trees ordered by the
share of the cloud's free capacity they hold (most first): first-fit
decreasing, the classic bin-packing heuristic, which answers "does it fit"
near-optimally and cheaply.  Usage only grows during the simulation, so a
tree that could not take one shape cannot take it later: each shape keeps a
cursor into the tree order and the whole run is about linear in consumers
plus trees.  Nova's weighers would spread rather than pack, so the plan
is one way the move can be done, not the one Nova would pick.

Six SELECTs whatever the cloud's size, three more with a move in flight.
"""
from __future__ import annotations

import dataclasses
import heapq
import time
from collections import defaultdict
from dataclasses import dataclass, field

import os_traits
from django.db.models import Sum

from allocations.models import Allocation
from placement_core import errors
from planning import drain_moves
# How a query string reads (GET /planning/drain, the console) is drain_query's.
from planning.drain_query import FULLEST, PARAMETERS, REPEATABLE, arguments  # noqa: F401
from providers.models import (
    Inventory,
    ProviderAggregate,
    ProviderTrait,
    ResourceProvider,
    capacity_of,
    unit_ok,
)
from providers.references import aggregate_by_ref, provider_by_ref

DISABLED = os_traits.COMPUTE_STATUS_DISABLED
SHARES = os_traits.MISC_SHARES_VIA_AGGREGATE
# Unplaced consumers given a full diagnosis each; the rest of the same shape
# reuse their shape's diagnosis (the cloud only fills up meanwhile).
DIAGNOSE = 50

# Why a consumer does not fit on one target tree (a bounded set).
REASONS = {
    "capacity": "not enough free capacity",
    "max_unit": "the amount is above max_unit",
    "min_unit": "the amount is below min_unit",
    "step_size": "the amount is not a multiple of step_size",
    "no_inventory": "no inventory of the class where the shape puts it",
    "no_child_of_kind": "no child provider of the same kind",
    "sharing_unreachable": "the sharing provider it keeps using is not reachable",
    "no_target": "no target tree at all",
}


# -- What comes out ---------------------------------------------------------------


@dataclass
class Move:
    consumer: str
    project: str
    holds: list  # [{"uuid", "name", "resources": {class: amount}}]
    to: list = field(default_factory=list)  # the same, where it lands
    reason: dict | None = None  # {"kind", "resource_class", "text", "trees"} when it does not fit


@dataclass
class DrainResult:
    fits: bool
    drained: list  # [{"uuid", "name"}]
    consumers: int
    placed: list  # of Move
    not_placed: list  # of Move
    fullest_after: list  # [{"uuid", "name", "resource_class", "used_before", "used", "capacity", "percent"}]
    targets: int  # trees that could receive
    took_ms: float
    # Moves in flight met: [{"consumer" (the MIGRATION one), "project",
    # "holds", "instance" (uuid or None), "instance_on" [{"uuid", "name"}]}]
    in_flight: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


# -- The cloud, read once ---------------------------------------------------------


class _Provider:
    __slots__ = ("id", "uuid", "name", "parent", "root", "inventory", "traits", "aggregates",
                 "children")

    def __init__(self, pk, uuid, name, parent, root):
        self.id, self.uuid, self.name = pk, uuid, name
        self.parent, self.root = parent, root or pk
        self.inventory = {}  # class -> (capacity, min_unit, max_unit, step_size)
        self.traits = set()
        self.aggregates = set()
        self.children = []


class _Cloud:
    def __init__(self, extra_traits=()):
        self.providers = {}
        for pk, uuid, name, parent, root in ResourceProvider.objects.values_list(
                "id", "uuid", "name", "parent_id", "root_id"):
            self.providers[pk] = _Provider(pk, uuid, name, parent, root)
        for p in self.providers.values():
            if p.parent in self.providers:
                self.providers[p.parent].children.append(p.id)
        for rp, rc, total, reserved, ratio, low, high, step in Inventory.objects.values_list(
                "resource_provider_id", "resource_class__name", "total", "reserved",
                "allocation_ratio", "min_unit", "max_unit", "step_size"):
            self.providers[rp].inventory[rc] = (capacity_of(total, reserved, ratio), low, high,
                                                step)
        self.used = defaultdict(int)  # (rp id, class) -> amount
        for rp, rc, n in Allocation.objects.values("resource_provider_id", "resource_class__name") \
                .annotate(n=Sum("used")).values_list("resource_provider_id",
                                                     "resource_class__name", "n"):
            self.used[(rp, rc)] = int(n)
        # Only the traits the simulation looks at: the two markers, the
        # traits asked of every target and the custom ones children carry.
        wanted = {DISABLED, SHARES, *extra_traits}
        for rp, trait in ProviderTrait.objects.values_list("resource_provider_id", "trait__name"):
            if trait in wanted or trait.startswith("CUSTOM_"):
                self.providers[rp].traits.add(trait)
        for rp, agg in ProviderAggregate.objects.values_list("resource_provider_id",
                                                             "aggregate__uuid"):
            self.providers[rp].aggregates.add(agg)
        self.sharing = {p.id for p in self.providers.values() if SHARES in p.traits}
        self.tree_aggregates = defaultdict(set)
        for p in self.providers.values():
            self.tree_aggregates[p.root] |= p.aggregates
        self.by_uuid = {p.uuid: p for p in self.providers.values()}
        self.by_name = {p.name: p for p in self.providers.values()}
        self.members = {}  # root -> its children that may receive (drain's _members)
        self.pools = {}  # root -> the sharing providers it may draw on (drain's _pools)

    def find(self, text: str) -> _Provider:
        # The one resolver every command and page uses (same words, same rules).
        return self.by_uuid[provider_by_ref(text).uuid]

    def subtree(self, pk):
        stack, out = [pk], []
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(self.providers[node].children)
        return out

    def disabled(self, pk) -> bool:
        return DISABLED in self.providers[self.providers[pk].root].traits

    def free(self, pk, rc) -> int:
        inv = self.providers[pk].inventory.get(rc)
        return inv[0] - self.used[(pk, rc)] if inv else 0


# -- One consumer's shape -----------------------------------------------------------


class _Need:
    """What one consumer needs placed: the amounts on a root, one entry per
    source child, the sharing providers it keeps and the amounts it holds
    on drained sharing providers."""

    __slots__ = ("consumer", "project", "holds", "root", "children", "keeps", "shared",
                 "moves_tree", "home", "size", "key", "migration")

    def __init__(self, consumer, project, holds):
        self.consumer, self.project, self.holds = consumer, project, holds
        self.root = {}
        self.children = []  # (kind: frozenset of classes, required traits, {class: amount})
        self.keeps = set()  # sharing providers that stay
        self.shared = []  # {class: amount} per drained sharing provider
        self.moves_tree = False
        self.home = None  # the tree it stays in when only a pool is drained


def _needs(cloud, drained, rows):
    holds = defaultdict(lambda: defaultdict(dict))
    projects, kinds = {}, {}
    for consumer, project, rp, rc, used, kind in rows:
        holds[consumer][rp][rc] = holds[consumer][rp].get(rc, 0) + used
        projects[consumer], kinds[consumer] = project, kind
    needs = []
    for consumer, by_rp in holds.items():
        need = _Need(consumer, projects[consumer], by_rp)
        need.migration = kinds[consumer] == drain_moves.MIGRATION
        in_trees = [rp for rp in by_rp if rp not in cloud.sharing]
        need.moves_tree = any(rp in drained for rp in in_trees)
        for rp, amounts in by_rp.items():
            p = cloud.providers[rp]
            if rp in cloud.sharing:
                if rp in drained:
                    need.shared.append(dict(amounts))
                else:
                    need.keeps.add(rp)
            elif not need.moves_tree:
                need.home = p.root
            elif p.parent is None:
                for rc, n in amounts.items():
                    need.root[rc] = need.root.get(rc, 0) + n
            else:
                custom = frozenset(t for t in p.traits if t.startswith("CUSTOM_"))
                need.children.append((frozenset(p.inventory), custom, dict(amounts)))
        need.children.sort(key=lambda c: (-sum(c[2].values()), sorted(c[2].items())))
        need.key = (tuple(sorted(need.root.items())),
                    tuple((tuple(sorted(k)), tuple(sorted(t)), tuple(sorted(a.items())))
                          for k, t, a in need.children),
                    tuple(sorted(need.keeps)),
                    tuple(tuple(sorted(a.items())) for a in need.shared),
                    need.home)
        needs.append(need)
    return needs


# -- Fitting ----------------------------------------------------------------------------


def _misfit(cloud, pk, amounts):
    """None when ``amounts`` fit on provider ``pk`` now, else (kind, class, free)."""
    p = cloud.providers[pk]
    for rc, n in amounts.items():
        inv = p.inventory.get(rc)
        if inv is None:
            return "no_inventory", rc, 0
        capacity, low, high, step = inv
        if not unit_ok(n, low, high, step):
            kind = "max_unit" if n > high else "min_unit" if n < low else "step_size"
            return kind, rc, capacity - cloud.used[(pk, rc)]
        if cloud.used[(pk, rc)] + n > capacity:
            return "capacity", rc, capacity - cloud.used[(pk, rc)]
    return None


class _Miss(Exception):
    def __init__(self, kind, rc=None, free=None, where=None):
        self.kind, self.rc, self.free, self.where = kind, rc, free, where


def _members(cloud, root, drained):
    """{kind (frozenset of classes): the children of ``root``'s tree with
    that inventory that may receive, in subtree order}, read once per tree:
    every consumer tries the same trees, and looks only at its kind."""
    members = cloud.members.get(root)
    if members is None:
        members = cloud.members[root] = defaultdict(list)
        for c in cloud.subtree(root):
            if c != root and c not in drained and not cloud.disabled(c):
                p = cloud.providers[c]
                members[frozenset(p.inventory)].append((c, p))
    return members


def _pools(cloud, root, drained):
    """The sharing providers the tree of ``root`` reaches that may receive,
    in id order (read once per tree)."""
    pools = cloud.pools.get(root)
    if pools is None:
        reach = cloud.tree_aggregates[root]
        pools = cloud.pools[root] = [
            s for s in sorted(cloud.sharing)
            if s not in drained and not cloud.disabled(s) and cloud.providers[s].aggregates & reach]
    return pools


def _try(cloud, need, root, drained):
    """{provider id: {class: amount}} for ``need`` in the tree of ``root``, or
    raise _Miss with the first constraint that fails there."""
    landing = {}
    top = cloud.providers[root]
    if need.root:
        miss = _misfit(cloud, root, need.root)
        if miss:
            raise _Miss(*miss, top.name)
        landing[root] = need.root
    if need.children:
        taken = set()
        members = _members(cloud, root, drained)
        for kind, custom, amounts in need.children:
            first = None
            for child, p in members.get(kind, ()):
                if child in taken or custom - p.traits:
                    continue
                miss = _misfit(cloud, child, amounts)
                if miss is None:
                    taken.add(child)
                    landing[child] = amounts
                    break
                first = first or (*miss, p.name)
            else:
                raise _Miss(*first) if first else _Miss("no_child_of_kind", None, None,
                                                        top.name)
    reach = cloud.tree_aggregates[root]
    for s in need.keeps:
        if not cloud.providers[s].aggregates & reach:
            raise _Miss("sharing_unreachable", None, None, cloud.providers[s].name)
    for amounts in need.shared:
        first = None
        for s in _pools(cloud, root, drained):
            if s in landing:
                continue
            miss = _misfit(cloud, s, amounts)
            if miss is None:
                landing[s] = amounts
                break
            first = first or (*miss, cloud.providers[s].name)
        else:
            raise _Miss(*first) if first else _Miss("sharing_unreachable")
    return landing


def _apply(cloud, landing, sign=1):
    for pk, amounts in landing.items():
        for rc, n in amounts.items():
            cloud.used[(pk, rc)] += sign * n


def _misses(cloud, need, roots, drained, known):
    for root in roots:
        try:
            _try(cloud, need, root, drained)
        except _Miss as miss:
            yield miss
    yield from known


def _diagnose(cloud, need, order, drained, misses=()):
    """The reason ``need`` fits nowhere: the constraint that failed on most
    target trees, with the most free amount any of them had. ``misses``:
    what failed on the last trees of ``order``, met by the scan that just
    found no place (the cloud unchanged since): only the trees before are
    tried again."""
    if not order:
        return {"kind": "no_target", "resource_class": None, "trees": 0, "targets": 0,
                "label": REASONS["no_target"], "most_free": None, "most_free_on": None,
                "others": "",
                "text": "no tree can receive anything (every tree is drained, disabled, a "
                        "sharing provider, or lacks a required trait or the target aggregate)"}
    counts = defaultdict(int)
    best = {}
    for miss in _misses(cloud, need, order[:len(order) - len(misses)], drained, misses):
        counts[(miss.kind, miss.rc)] += 1
        if miss.free is not None and (best.get((miss.kind, miss.rc)) is None
                                      or miss.free > best[(miss.kind, miss.rc)][0]):
            best[(miss.kind, miss.rc)] = (miss.free, miss.where)
    (kind, rc), n = max(counts.items(), key=lambda kv: (kv[1], kv[0][0], kv[0][1] or ""))
    most_free, most_free_on = best.get((kind, rc), (None, None)) if kind == "capacity" \
        else (None, None)
    others = "; ".join(
        f"{c}: {REASONS[k[0]]}" + (f" ({k[1]})" if k[1] else "")
        for c, k in sorted(((c, k) for k, c in counts.items() if k != (kind, rc)),
                           key=lambda ck: (-ck[0], ck[1][0], ck[1][1] or ""))[:3])
    text = f"{n} of {len(order)} target trees: {REASONS[kind]}"
    if rc:
        text += f" ({rc})"
    if most_free is not None:
        text += f"; the most free {rc} where this shape may land is {most_free} on {most_free_on}"
    if others:
        text += "; " + others
    return {"kind": kind, "resource_class": rc, "trees": n, "targets": len(order),
            "label": REASONS[kind], "most_free": most_free, "most_free_on": most_free_on,
            "others": others, "text": text}


# -- The what-if ----------------------------------------------------------------------


def drained_providers(cloud, *, providers=(), trees=(), aggregate=None):
    chosen = set()
    for text in providers:
        chosen.update(cloud.subtree(cloud.find(text).id))
    for text in trees:
        chosen.update(cloud.subtree(cloud.find(text).root))
    if aggregate:
        agg = aggregate_by_ref(aggregate)
        roots = {p.root for p in cloud.providers.values() if agg in p.aggregates}
        if not roots:
            raise errors.BadRequest(f"No resource provider is in aggregate {agg}.")
        for root in roots:
            chosen.update(cloud.subtree(root))
    return chosen


def _entry(cloud, pk, amounts):
    p = cloud.providers[pk]
    return {"uuid": p.uuid, "name": p.name, "resources": dict(sorted(amounts.items()))}


def drain(*, providers=(), trees=(), aggregate=None, required=(), target_aggregate=None,
          fullest=FULLEST) -> DrainResult:
    """Simulate draining; raises ``errors.BadRequest`` for an unknown provider
    or aggregate, or when nothing is named."""
    started = time.perf_counter()
    if not (providers or trees or aggregate):
        raise errors.BadRequest("Name what to drain: provider, tree or aggregate.")
    required = frozenset(required)
    cloud = _Cloud(extra_traits=required)
    drained = drained_providers(cloud, providers=providers, trees=trees, aggregate=aggregate)
    if target_aggregate is not None:
        target_agg = aggregate_by_ref(target_aggregate)
    rows = Allocation.objects.filter(consumer_id__in=Allocation.objects.filter(
        resource_provider_id__in=drained).values("consumer_id")).values_list(
        "consumer__uuid", "consumer__project__external_id", "resource_provider_id",
        "resource_class__name", "used", "consumer__consumer_type__name")
    needs = _needs(cloud, drained, rows)
    halves = [need for need in needs if need.migration]
    needs = [need for need in needs if not need.migration]
    before = dict(cloud.used)
    def released(need):
        """What a consumer gives up to move: its tree usage (drained or
        not) when it leaves its tree, and what it holds on drained pools."""
        return {rp: a for rp, a in need.holds.items()
                if (rp in drained if rp in cloud.sharing else need.moves_tree)}

    # Everything moving leaves first, and from here on usage only grows;
    # a move in flight leaves whole, its instance already placed.
    for need in needs:
        _apply(cloud, released(need), -1)
    for need in halves:
        _apply(cloud, need.holds, -1)

    cloud_capacity = defaultdict(int)
    for p in cloud.providers.values():
        for rc, inv in p.inventory.items():
            cloud_capacity[rc] += inv[0]

    def share(amounts_by_rp):
        return sum(n / cloud_capacity[rc] for amounts in amounts_by_rp.values()
                   for rc, n in amounts.items() if cloud_capacity[rc] > 0)

    roots = [p.id for p in cloud.providers.values()
             if p.parent is None and p.id not in drained and p.id not in cloud.sharing
             and DISABLED not in p.traits and not required - p.traits
             and (target_aggregate is None or target_agg in cloud.tree_aggregates[p.id])]
    tree_free = defaultdict(float)
    for p in cloud.providers.values():
        for rc, inv in p.inventory.items():
            if cloud_capacity[rc] > 0 and p.id not in drained:
                tree_free[p.root] += max(cloud.free(p.id, rc), 0) / cloud_capacity[rc]
    order = sorted(roots, key=lambda r: (-tree_free[r], cloud.providers[r].name))

    for need in needs:
        need.size = share(need.holds)
    needs.sort(key=lambda n: (-n.size, n.consumer))
    cursor = {}  # shape -> index into order: earlier trees cannot take it any more
    # shape -> (placements made when it was diagnosed, the diagnosis): until
    # the next placement the cloud is the same, and so is the diagnosis.
    diagnosed = {}
    placed, not_placed, stays = [], [], []
    for need in needs:
        holds = [_entry(cloud, rp, a) for rp, a in sorted(need.holds.items())]
        move = Move(consumer=need.consumer, project=need.project, holds=holds)
        landing = None
        misses = []  # what failed on the trees scanned, in order
        if need.moves_tree:
            i = cursor.get(need.key, 0)
            while i < len(order):
                try:
                    landing = _try(cloud, need, order[i], drained)
                    break
                except _Miss as miss:
                    misses.append(miss)
                    i += 1
            cursor[need.key] = i
            candidates = order
        else:
            candidates = [need.home] if need.home is not None else order
            for root in candidates:
                try:
                    landing = _try(cloud, need, root, drained)
                    break
                except _Miss as miss:
                    misses.append(miss)
        if landing is None:
            known = diagnosed.get(need.key)
            if known is None or (len(not_placed) < DIAGNOSE and known[0] != len(placed)):
                known = diagnosed[need.key] = (len(placed), _diagnose(
                    cloud, need, candidates, drained, misses=misses))
            move.reason = known[1]
            not_placed.append(move)
            stays.append(need)
            continue
        _apply(cloud, landing)
        move.to = [_entry(cloud, rp, a) for rp, a in sorted(landing.items())]
        placed.append(move)

    # A consumer that fits nowhere does not move: what it holds stays held.
    for need in stays:
        _apply(cloud, released(need))
    fullness = []
    for p in cloud.providers.values():
        if p.id in drained or cloud.disabled(p.id):
            continue
        for rc, (capacity, *_rest) in p.inventory.items():
            if capacity > 0:
                used = cloud.used[(p.id, rc)]
                fullness.append((used / capacity, p.name, rc, p, used, capacity))
    # The first ``fullest`` of the sorted list, without sorting all of it.
    fullness = heapq.nsmallest(fullest, fullness, key=lambda f: (-f[0], f[1], f[2]))
    fullest_after = [
        {"uuid": p.uuid, "name": p.name, "resource_class": rc,
         "used_before": before.get((p.id, rc), 0), "used": used, "capacity": capacity,
         "percent": round(100 * ratio, 1)}
        for ratio, _name, rc, p, used, capacity in fullness[:fullest]]
    return DrainResult(
        fits=not not_placed,
        drained=[{"uuid": cloud.providers[pk].uuid, "name": cloud.providers[pk].name}
                 for pk in sorted(drained, key=lambda pk: cloud.providers[pk].name)],
        consumers=len(needs), placed=placed, not_placed=not_placed,
        fullest_after=fullest_after, targets=len(order),
        took_ms=round((time.perf_counter() - started) * 1000, 1),
        in_flight=_in_flight(cloud, halves))


def _in_flight(cloud, halves):
    instances = drain_moves.instances_of([need.consumer for need in halves])
    hosts = drain_moves.hosts_of(
        {i for i in instances.values() if i}, lambda pk: cloud.providers[pk].root,
        cloud.sharing, lambda pk: {"uuid": cloud.providers[pk].uuid,
                                   "name": cloud.providers[pk].name})
    return [{"consumer": need.consumer, "project": need.project,
             "holds": [_entry(cloud, rp, a) for rp, a in sorted(need.holds.items())],
             "instance": instances[need.consumer],
             "instance_on": hosts.get(instances[need.consumer], [])}
            for need in sorted(halves, key=lambda n: n.consumer)]

