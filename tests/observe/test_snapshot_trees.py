"""Per-aggregate snapshots count whole trees (a tree is in an aggregate when
its root is, as ``member_of`` reads it), and two runs started together write
one snapshot."""
import time
from collections import defaultdict

import pytest

from allocations.models import Allocation
from allocations.services import allocations_set
from operations import snapshots
from operations.models import UsageSnapshot
from providers.models import Aggregate, Inventory, ProviderAggregate
from tests.factories import InventoryFactory, ResourceProviderFactory, resource_class
from tests.support.claims import PROJECT, USER, new_uuid

AGG = "5b1f2c7e-2222-4222-8333-944444444444"


def _tree_cloud():
    """cn1 (in AGG): MEMORY_MB and DISK_GB on the root, VCPU on two NUMA
    cells; cn2 (no aggregate); a sharing pool in AGG; a NUMA child of cn2
    that is itself in AGG (its own membership counts, as member_of's)."""
    agg = Aggregate.objects.create(uuid=AGG)
    cn1, cn2, pool = (ResourceProviderFactory(name=n) for n in ("cn1", "cn2", "pool"))
    n0 = ResourceProviderFactory(name="cn1-numa0", parent=cn1)
    n1 = ResourceProviderFactory(name="cn1-numa1", parent=cn1)
    m0 = ResourceProviderFactory(name="cn2-numa0", parent=cn2)
    for rp, rc, total in ((cn1, "MEMORY_MB", 8192), (cn1, "DISK_GB", 100), (n0, "VCPU", 8),
                          (n1, "VCPU", 8), (cn2, "VCPU", 4), (m0, "PCPU", 6),
                          (pool, "DISK_GB", 1000)):
        InventoryFactory(resource_provider=rp, resource_class=resource_class(rc), total=total,
                         max_unit=total)
    for rp in (cn1, pool, m0):
        ProviderAggregate.objects.create(resource_provider=rp, aggregate=agg)
    allocations_set(consumer_uuid=new_uuid(), allocations={
        cn1.uuid: {"MEMORY_MB": 1024}, n0.uuid: {"VCPU": 2}, pool.uuid: {"DISK_GB": 10}},
        project_id=PROJECT, user_id=USER, consumer_generation=None)
    allocations_set(consumer_uuid=new_uuid(), allocations={
        n1.uuid: {"VCPU": 3}, m0.uuid: {"PCPU": 1}, cn2.uuid: {"VCPU": 1}},
        project_id=PROJECT, user_id=USER, consumer_generation=None)


def _counted_by_tree():
    """The same figures counted another way: per provider, is it or its root
    in AGG; sum its inventory and usage."""
    in_agg = set(ProviderAggregate.objects.filter(aggregate__uuid=AGG)
                 .values_list("resource_provider_id", flat=True))
    figures = defaultdict(lambda: [0, 0])
    for inv in Inventory.objects.select_related("resource_provider", "resource_class"):
        rp = inv.resource_provider
        if rp.pk in in_agg or rp.root_id in in_agg:
            figures[inv.resource_class.name][0] += inv.capacity
    for a in Allocation.objects.select_related("resource_provider", "resource_class"):
        rp = a.resource_provider
        if rp.pk in in_agg or rp.root_id in in_agg:
            figures[a.resource_class.name][1] += a.used
    return {rc: tuple(v) for rc, v in figures.items()}


@pytest.mark.django_db
def test_aggregate_rows_count_the_children_of_a_root_in_it():
    _tree_cloud()
    snapshots.take(force=True)
    rows = {rc: (capacity, used) for rc, capacity, used in UsageSnapshot.objects.filter(
        aggregate_uuid=AGG).values_list("resource_class", "capacity", "used")}
    assert rows == _counted_by_tree()
    assert rows["VCPU"] == (16, 5)  # both NUMA cells of cn1, not cn2's VCPU
    assert rows["PCPU"] == (6, 1)  # cn2's NUMA cell is in AGG itself
    assert rows["DISK_GB"] == (1100, 10)


@pytest.mark.needs_row_locks
@pytest.mark.django_db(transaction=True)
def test_two_runs_started_together_write_once(settings, monkeypatch):
    from tests.racing import race

    settings.PLACEMENT_USAGE_SNAPSHOT_INTERVAL_SECONDS = 3600
    _tree_cloud()
    compute = snapshots.compute

    def slow_compute():
        # Both runs are inside their transaction before either writes.
        time.sleep(0.5)
        return compute()

    monkeypatch.setattr(snapshots, "compute", slow_compute)
    written = race([snapshots.take, snapshots.take])
    assert sorted(written) == [0, UsageSnapshot.objects.count()]
    assert UsageSnapshot.objects.values("taken_at").distinct().count() == 1
