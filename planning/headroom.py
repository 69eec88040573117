"""Headroom: how many more of each named request shape ("flavor") fit, in
the whole cloud and per aggregate.

A flavor is an unsuffixed request group (``VCPU:4,MEMORY_MB:8192,DISK_GB:80``):
each instance takes every class from one provider of one tree, or from a
sharing provider the tree reaches through an aggregate. Per provider and
class an instance of ``a`` units fits ``floor(free / a)`` times when ``a``
passes min_unit, max_unit and step_size (``providers.models.unit_ok``), free
being capacity (``capacity_of``: reserved and allocation ratio) less usage.
A tree holds as many instances as its scarcest class allows, its own
providers first, then the sharing pools it reaches, which the trees draw
down in turn (trees by root name), so a pool is never counted twice.

Trees whose root is marked COMPUTE_STATUS_DISABLED count for nothing. Read
in four statements whatever the cloud's size.

The flavors come from two places (:func:`flavor_list`): the
``PLACEMENT_FLAVORS`` setting and the ``Flavor`` rows operators store from
the console or the admin. A name both define is the setting's: the
deployment's configuration wins, and the stored row is shown as overridden.
"""
from __future__ import annotations

from collections import defaultdict

import os_traits
from django.conf import settings
from django.db.models import Sum

from allocations.models import Allocation
from placement_core.querystring import Flavor, parse_resources
from planning import models
from providers.models import Inventory, ProviderAggregate, ProviderTrait, capacity_of, unit_ok
from providers.selectors import DISABLED_TRAIT

SHARES = os_traits.MISC_SHARES_VIA_AGGREGATE
# Nova schedules nothing to a host whose root has this trait: no headroom there.
DISABLED = DISABLED_TRAIT


def flavor_list() -> list[Flavor]:
    """The flavors headroom counts: ``PLACEMENT_FLAVORS`` in their order, then
    the stored ones by name, leaving out a stored one whose name the setting
    defines (1 statement)."""
    configured = list(settings.PLACEMENT_FLAVORS)
    taken = {f.name for f in configured}
    return configured + [
        Flavor(name, parse_resources(text))
        for name, text in models.Flavor.objects.order_by("name").values_list("name", "resources")
        if name not in taken
    ]


def _load():
    used = {
        (rp, rc): n for rp, rc, n in Allocation.objects.values(
            "resource_provider_id", "resource_class__name").annotate(n=Sum("used"))
        .values_list("resource_provider_id", "resource_class__name", "n")
    }
    providers = {}  # rp id -> (root id, name of root)
    inventory = defaultdict(dict)  # rp id -> class -> (free, min, max, step)
    about = {}  # rp id -> (uuid, name, {class: capacity})
    for (rp, uuid, name, root, root_name, rc, total, reserved, ratio, low, high, step) in (
        Inventory.objects.values_list(
            "resource_provider_id", "resource_provider__uuid", "resource_provider__name",
            "resource_provider__root_id", "resource_provider__root__name",
            "resource_class__name", "total", "reserved", "allocation_ratio", "min_unit",
            "max_unit", "step_size")):
        providers[rp] = (root or rp, root_name or "")
        capacity = capacity_of(total, reserved, ratio)
        free = capacity - int(used.get((rp, rc), 0))
        inventory[rp][rc] = (max(free, 0), low, high, step)
        about.setdefault(rp, (uuid, name, {}))[2][rc] = capacity
    sharing, disabled = set(), set()
    for rp, trait in ProviderTrait.objects.filter(trait__name__in=[SHARES, DISABLED]) \
            .values_list("resource_provider_id", "trait__name"):
        (sharing if trait == SHARES else disabled).add(rp)
    aggregates = defaultdict(set)  # rp id -> its own aggregate uuids
    roots = {}  # rp id -> root id, for the providers in an aggregate
    for rp, root, agg in ProviderAggregate.objects.values_list(
            "resource_provider_id", "resource_provider__root_id", "aggregate__uuid"):
        aggregates[rp].add(agg)
        roots[rp] = root or rp
    return providers, inventory, sharing, disabled, aggregates, roots, about


def _cloud():
    """The cloud as headroom counts it: the enabled trees ({root: [rp ids]},
    sharing pools left out), the roots' names, the pools ({rp id: classes}),
    which pools each tree reaches, and what :func:`_load` read."""
    providers, inventory, sharing, disabled, aggregates, roots, about = _load()
    members = defaultdict(list)  # root id -> its providers with inventory
    names = {}
    for rp, (root, root_name) in providers.items():
        if rp in sharing or root in disabled:
            continue
        members[root].append(rp)
        names[root] = root_name
    tree_aggs = defaultdict(set)
    for rp, aggs in aggregates.items():
        tree_aggs[roots[rp]] |= aggs
    pools = {s: inventory[s] for s in sharing if s in inventory}
    # Through an index of the pools by aggregate: matching every tree against
    # every pool was a third of a second at 1,430 trees and 143 pools.
    pools_in = defaultdict(set)
    for s in pools:
        for agg in aggregates.get(s, ()):
            pools_in[agg].add(s)
    reaches = {root: set().union(*(pools_in[a] for a in tree_aggs[root] if a in pools_in))
               for root in members}
    return {"members": members, "names": names, "pools": pools, "reaches": reaches,
            "providers": providers, "inventory": inventory, "aggregates": aggregates,
            "roots": roots, "about": about}


def _slots(entry, amount) -> int:
    free, low, high, step = entry
    return free // amount if unit_ok(amount, low, high, step) else 0


def _count(flavor, trees, pools, reaches) -> int:
    """Instances of ``flavor`` over ``trees`` ({root: [rp ids]}), drawing on
    ``pools`` ({sharing rp id: {class: entry}}) through ``reaches``."""
    remaining = {s: {rc: _slots(e, flavor.resources[rc]) if rc in flavor.resources else 0
                     for rc, e in classes.items()} for s, classes in pools.items()}
    total = 0
    for root in sorted(trees, key=lambda r: trees[r][1]):
        members, _ = trees[root]
        # Only the pools counted here: per aggregate, a tree may also reach
        # pools of its other aggregates, which that count leaves out.
        shared_by = sorted(s for s in reaches.get(root, ()) if s in remaining)
        local = {rc: sum(_slots(inv[rc], a) for inv in members if rc in inv)
                 for rc, a in flavor.resources.items()}
        shared = {rc: sum(remaining[s].get(rc, 0) for s in shared_by)
                  for rc in flavor.resources}
        n = min(local[rc] + shared[rc] for rc in flavor.resources)
        if n <= 0:
            continue
        total += n
        for rc in flavor.resources:
            need = n - local[rc]
            for s in shared_by:
                if need <= 0:
                    break
                take = min(need, remaining[s].get(rc, 0))
                remaining[s][rc] = remaining[s].get(rc, 0) - take
                need -= take
    return total


def headroom(flavors: list[Flavor]) -> dict:
    """{flavor name: {"cloud": n, "aggregates": {aggregate uuid: n}}}.

    Two aggregate rules, each the one its question has elsewhere: a tree
    reaches a sharing pool through the aggregates of any of its providers
    (as the candidate engine finds pools); counting per aggregate, a
    provider is in an aggregate when it or its root is a member (as usage
    snapshots count it), so a root brings its whole tree and a member NUMA
    cell only itself."""
    if not flavors:
        return {}
    cloud = _cloud()
    members, names, pools, reaches = (cloud[k] for k in ("members", "names", "pools",
                                                        "reaches"))
    providers, inventory, aggregates = cloud["providers"], cloud["inventory"], cloud["aggregates"]
    per_agg = defaultdict(dict)  # aggregate -> {root: the tree's providers in it}
    for rp, aggs in aggregates.items():
        root = cloud["roots"][rp]
        if root not in members:
            continue
        for agg in aggs:
            if rp == root:
                per_agg[agg][root] = members[root]
            elif per_agg[agg].get(root) is not members[root] and rp in providers:
                per_agg[agg].setdefault(root, []).append(rp)
    every_agg = sorted({a for aggs in aggregates.values() for a in aggs})

    def trees(chosen):
        return {root: ([inventory[rp] for rp in rps], names[root])
                for root, rps in chosen.items()}

    whole = trees(members)
    by_agg = {agg: trees(per_agg[agg]) for agg in every_agg if per_agg.get(agg)}
    agg_pools = {agg: {s: p for s, p in pools.items() if agg in aggregates.get(s, set())}
                 for agg in by_agg}
    return {
        flavor.name: {
            "cloud": _count(flavor, whole, pools, reaches),
            "aggregates": {agg: _count(flavor, in_agg, agg_pools[agg], reaches)
                           for agg, in_agg in by_agg.items()},
        }
        for flavor in flavors
    }


def unusable(flavors: list[Flavor]) -> list[dict]:
    """Free capacity no flavor of ``flavors`` can use where it is: per provider
    and class a flavor asks for, [{"uuid", "name", "resource_class", "free",
    "capacity", "short": [classes]}], enabled trees and sharing pools.

    A provider's free amount of a class is usable when some flavor asking
    for the class fits at least once in a tree the provider belongs to or,
    for a pool, in a tree that reaches it, with that provider giving the
    class (the counting of :func:`headroom`, one tree at a time, nothing
    drawn down). ``short`` names what stood in the way of the flavors that
    came nearest (the fewest classes missing): the classes of which the
    tree had no room for one instance, or this class itself when its free
    amount is less than the flavor asks (or is refused by min_unit,
    max_unit or step_size); a pool no enabled tree reaches has none. Four
    statements."""
    cloud = _cloud()
    inventory, pools, reaches = cloud["inventory"], cloud["pools"], cloud["reaches"]
    usable, short = set(), defaultdict(list)  # (rp, class) -> [classes missing, ...]
    for root, rps in cloud["members"].items():
        givers = rps + sorted(reaches[root])
        for flavor in flavors:
            slots = {rc: {rp: _slots(inventory[rp][rc], a) for rp in givers
                          if rc in inventory[rp]} for rc, a in flavor.resources.items()}
            lacking = {rc for rc, by in slots.items() if not any(by.values())}
            for rc, by in slots.items():
                for rp, n in by.items():
                    if n and not lacking:
                        usable.add((rp, rc))
                    else:
                        short[(rp, rc)].append(lacking or {rc})
    asked = {rc for flavor in flavors for rc in flavor.resources}
    judged = [rp for rps in cloud["members"].values() for rp in rps] + sorted(pools)
    out = []
    for rp in judged:
        uuid, name, capacities = cloud["about"][rp]
        for rc, (free, *_) in inventory[rp].items():
            if rc in asked and free > 0 and (rp, rc) not in usable:
                fewest = min((len(c) for c in short[(rp, rc)]), default=0)
                nearest = set().union(*(c for c in short[(rp, rc)] if len(c) == fewest))
                out.append({"uuid": uuid, "name": name, "resource_class": rc, "free": free,
                            "capacity": capacities[rc], "short": sorted(nearest)})
    return out
