"""The console's capacity reads: per provider and class, summed over the
cloud (the overview) or over a tree (a root's page), the fullest
providers. Capacity is ``providers.models``' rule, floored per inventory;
free is what each inventory still offers, never below nothing.

Each function runs a fixed number of queries whatever the data size.
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict

from django.db.models import (
    F,
    FloatField,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Q,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce, Floor, Greatest

from allocations.models import Allocation
from providers import selectors as provider_selectors
from providers.models import Inventory, ResourceProvider, capacity_expression, capacity_of
from resource_classes.models import ResourceClass


@dataclasses.dataclass
class Capacity:
    """One resource class on one provider (or summed over the cloud)."""

    resource_class: str
    total: int
    reserved: int
    used: int
    capacity: int  # (total - reserved) * allocation_ratio
    ratio_min: float = 1.0
    ratio_max: float = 1.0
    min_unit: int = 1
    max_unit: int = 0
    step_size: int = 1
    # Summed over many inventories (class_totals): what they still offer,
    # and for the bar each total and reserved times its own ratio.
    offered: int | None = None
    scaled_total: float | None = None
    scaled_reserved: float = 0.0

    @property
    def free(self):
        """What can still be allocated: never below nothing (a provider over
        capacity offers none; allocations without inventory take nobody's).
        A sum over inventories is theirs, each floored on its own, disabled
        trees left out (as headroom does): their capacity is offered to no one."""
        if self.offered is not None:
            return self.offered
        return max(self.capacity - self.used, 0)

    @property
    def ratio(self):
        return self.ratio_max

    @property
    def fraction(self):
        return self.used / self.capacity if self.capacity > 0 else (1.0 if self.used else 0.0)

    @property
    def percent(self):
        return round(self.fraction * 100, 1)


def _without_inventory(resource_class, used) -> Capacity:
    """Allocations of a class without inventory: nothing offered, and no
    ratio or unit limits to show (there is no inventory to hold them)."""
    return Capacity(resource_class, 0, 0, used, 0, ratio_min=None, ratio_max=None,
                    min_unit=None, max_unit=None, step_size=None)


def _held():
    """What is allocated of the outer inventory row's class on its provider."""
    return Coalesce(Subquery(
        Allocation.objects.filter(resource_provider_id=OuterRef("resource_provider_id"),
                                  resource_class_id=OuterRef("resource_class_id"))
        .order_by().values("resource_provider_id").annotate(s=Sum("used")).values("s"),
        output_field=IntegerField()), 0)


def class_totals() -> list[Capacity]:
    """Cloud-wide totals per resource class, free leaving out disabled
    trees (2 queries)."""
    on_disabled = Q(resource_provider__root_id__in=provider_selectors.disabled_roots())
    # Each inventory's capacity floored before the sum, as capacity_of does
    # (two inventories of 11.25 and 8.75 offer 19, not 20).
    capacity = Floor(capacity_expression())
    inv = (
        Inventory.objects.values("resource_class__name")
        .annotate(
            sum_total=Sum("total"),
            sum_reserved=Sum("reserved"),
            capacity=Sum(capacity),
            ratio_min=Min("allocation_ratio"),
            ratio_max=Max("allocation_ratio"),
            offered=Sum(Greatest(capacity - _held(), Value(0.0)), filter=~on_disabled),
            scaled_total=Sum(F("total") * F("allocation_ratio"), output_field=FloatField()),
            scaled_reserved=Sum(F("reserved") * F("allocation_ratio"), output_field=FloatField()),
        )
        .order_by("resource_class__name")
    )
    used = dict(Allocation.objects.values("resource_class__name").annotate(u=Sum("used"))
                .order_by().values_list("resource_class__name", "u"))
    rows = []
    for r in inv:
        rows.append(Capacity(
            r["resource_class__name"], r["sum_total"], r["sum_reserved"],
            used.pop(r["resource_class__name"], 0) or 0, int(r["capacity"] or 0),
            r["ratio_min"], r["ratio_max"], offered=int(r["offered"] or 0),
            scaled_total=r["scaled_total"] or 0.0, scaled_reserved=r["scaled_reserved"] or 0.0))
    # Allocations of a class nobody has inventory of any more.
    rows += [_without_inventory(name, u) for name, u in sorted(used.items())]
    return rows


def capacities(provider_ids) -> dict[int, list[Capacity]]:
    """Per provider, its inventories with usage (2 queries)."""
    provider_ids = list(provider_ids)
    used = {
        (r["resource_provider_id"], r["resource_class_id"]): r["u"]
        for r in Allocation.objects.filter(resource_provider_id__in=provider_ids)
        .values("resource_provider_id", "resource_class_id").annotate(u=Sum("used")).order_by()
    }
    out = defaultdict(list)
    # Tuples, not model instances: a download reads every provider's.
    for rp, rc, name, total, reserved, ratio, low, high, step in Inventory.objects.filter(
            resource_provider_id__in=provider_ids).order_by("resource_class__name").values_list(
            "resource_provider_id", "resource_class_id", "resource_class__name", "total",
            "reserved", "allocation_ratio", "min_unit", "max_unit", "step_size"):
        out[rp].append(Capacity(name, total, reserved, used.pop((rp, rc), 0),
                                capacity_of(total, reserved, ratio), ratio, ratio, low, high,
                                step))
    if used:
        names = dict(ResourceClass.objects.filter(
            pk__in={k[1] for k in used}).values_list("pk", "name"))
        for (rp, rc), u in used.items():
            out[rp].append(_without_inventory(names[rc], u))
    return out


def fullest_providers(limit=10) -> list[tuple[ResourceProvider, Capacity]]:
    """Providers whose busiest class is the most used (3 queries)."""
    used = {
        (r["resource_provider_id"], r["resource_class_id"]): r["u"]
        for r in Allocation.objects.values("resource_provider_id", "resource_class_id")
        .annotate(u=Sum("used")).order_by()
    }
    best = {}
    for rp, rc, total, reserved, ratio in Inventory.objects.values_list(
            "resource_provider_id", "resource_class_id", "total", "reserved", "allocation_ratio"):
        u = used.get((rp, rc), 0)
        if not u:
            continue
        cap = capacity_of(total, reserved, ratio)
        frac = u / cap if cap > 0 else 1.0
        if rp not in best or frac > best[rp][0]:
            best[rp] = (frac, rc, total, reserved, u, cap, ratio)
    top = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))[:limit]
    rps = ResourceProvider.objects.in_bulk([rp for rp, _ in top])
    rcs = dict(ResourceClass.objects.filter(pk__in={v[1] for _, v in top}).values_list("pk", "name"))
    return [(rps[rp], Capacity(rcs[v[1]], v[2], v[3], v[4], v[5], v[6], v[6])) for rp, v in top]


def tree_totals(provider_ids) -> dict:
    """Capacity, usage and what is still free per class summed over the
    given providers (a tree), each provider's free counted on its own (one
    over capacity offers nothing, and takes nothing from the others), 2
    queries."""
    totals = {}
    for caps in capacities(provider_ids).values():
        for cap in caps:
            entry = totals.setdefault(cap.resource_class, {"capacity": 0, "used": 0, "free": 0})
            entry["capacity"] += cap.capacity
            entry["used"] += cap.used
            entry["free"] += cap.free
    return dict(sorted(totals.items()))


def tree_capacities(root_ids) -> dict[int, list[Capacity]]:
    """Per root, its tree's inventories summed per class (a host's VCPU on
    its NUMA cells beside the MEMORY_MB on the root), each inventory's free
    counted on its own (3 queries)."""
    root_of = dict(ResourceProvider.objects.filter(root_id__in=list(root_ids))
                   .values_list("pk", "root_id"))
    sums = defaultdict(dict)
    for pk, caps in capacities(root_of).items():
        for cap in caps:
            # The bar draws each total and reserved times its own ratio.
            ratio = cap.ratio or 0.0
            entry = sums[root_of[pk]].get(cap.resource_class)
            if entry is None:
                sums[root_of[pk]][cap.resource_class] = dataclasses.replace(
                    cap, offered=cap.free, scaled_total=cap.total * ratio,
                    scaled_reserved=cap.reserved * ratio)
                continue
            entry.total += cap.total
            entry.reserved += cap.reserved
            entry.used += cap.used
            entry.capacity += cap.capacity
            entry.offered += cap.free
            entry.scaled_total += cap.total * ratio
            entry.scaled_reserved += cap.reserved * ratio
            if cap.ratio is not None:
                entry.ratio_min = min(entry.ratio_min or cap.ratio, cap.ratio)
                entry.ratio_max = max(entry.ratio_max or cap.ratio, cap.ratio)
    return {root: sorted(by_class.values(), key=lambda c: c.resource_class)
            for root, by_class in sums.items()}
