"""A small, realistic cloud for a first look at the console (``make demo``),
written through the services as the API would write it.

Four compute nodes, each with two NUMA cells (PCPU, VCPU, MEMORY_MB) and an
SR-IOV NIC (SRIOV_NET_VF, bandwidth); a shared storage pool (DISK_GB) in the
aggregate of the first three; traits; twelve instances spread over the
nodes, one of them moving from compute-01 to compute-02 (its MIGRATION
consumer holds the source host's allocations, the instance the
destination's, as Nova does during a move); the fourth node disabled.
compute-03 has only two dedicated cores (PCPU) per cell.

The cloud is grown over a simulated fortnight ending now, so that the
console has something to show on first look: instances boot one by one,
two more come and go, one is resized and its project handed over, the move
starts on the last day; a usage snapshot is taken every six hours. Every
write goes through the services (the history records them, source
``demo_cloud``); only the times are simulated: each write's history rows,
and its consumers' ``created_at`` / ``updated_at``, are stamped with the
moment the timeline gives it.
"""
from __future__ import annotations

import datetime
import uuid

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from allocations.models import Consumer
from allocations.services import ConsumerAllocations, allocations_delete, allocations_replace
from operations import snapshots
from maintenance.demo_trouble import seed_trouble
from operations.models import AllocationChange
from providers.inventory_services import InventorySpec, inventories_replace
from providers.services import provider_aggregates_set, provider_create, provider_traits_set
from resource_classes.services import catalog_sync, trait_ensure

DEMO = uuid.UUID("00000000-0000-4000-8000-000000000000")


def _uuid(*parts) -> str:
    """Stable uuids, so a second run finds the same providers."""
    return str(uuid.uuid5(DEMO, "/".join(str(p) for p in parts)))


def _provider(name, parent=None, inventories=None, traits=(), *, write=True):
    """Create one provider (``write=False``: only its uuid, for a dry run)."""
    if not write:
        return _uuid(name)
    rp = provider_create(name=name, uuid=_uuid(name), parent_provider_uuid=parent)
    if inventories:
        rp, _ = inventories_replace(
            provider_uuid=rp.uuid, generation=rp.generation,
            inventories={rc: InventorySpec(**spec) for rc, spec in inventories.items()},
            reserved_may_equal_total=True)
    if traits:
        provider_traits_set(uuid=rp.uuid, trait_names=list(traits), generation=rp.generation)
    return rp.uuid


DAYS = 14
SNAPSHOT_EVERY = datetime.timedelta(hours=6)


def demo_cloud(*, now=None, dry_run=False, progress=None) -> dict:
    """Create the cloud: the providers in one transaction, then the
    timeline's allocation writes, each its own outermost transaction (as
    every allocation write is). With ``dry_run`` nothing is written: the
    counts are those the timeline would make. ``progress(done, total,
    what)`` hears of each step (a terminal's progress line)."""
    progress = progress or (lambda done, total, what: None)
    now = now or timezone.now()
    start = now - datetime.timedelta(days=DAYS)
    if dry_run:
        events = _timeline(_demo_providers(write=False), start, now)
        ticks = (now - start) // SNAPSHOT_EVERY + 1
        consumers = {u for _, _, created in events for u in created}
        # + the consumer seed_trouble leaves without allocations
        return {"providers": 1 + 4 * 4, "consumers": len(consumers) - len(DELETED) + 1,
                "snapshots": ticks, "writes": len(events)}
    progress(0, 1, "providers")
    with transaction.atomic():
        layout = _demo_providers(write=True)
    events = _timeline(layout, start, now)
    clock = _Clock(start)
    steps = len(events) + 2
    for done, (moment, write, created) in enumerate(events, 1):
        progress(done, steps, f"allocation writes and snapshots, {moment:%Y-%m-%d}")
        clock.at(moment, write, created=created)
    clock.until(now)
    progress(steps - 1, steps, "scheduling failures and audit findings")
    trouble = seed_trouble(_uuid, now=now)
    progress(steps, steps, "")
    return {"providers": 1 + 4 * 4, "consumers": Consumer.objects.count(),
            "snapshots": clock.snapshots, "writes": len(events),
            "history": AllocationChange.objects.count(), **trouble}


class _Clock:
    """Stamps each write with its simulated moment and takes the snapshots
    due before it."""

    def __init__(self, start):
        self.next_snapshot = start
        self.snapshots = 0

    def at(self, moment, write, *, created=()):
        self.until(moment)
        mark = AllocationChange.objects.aggregate(m=Max("pk"))["m"] or 0
        write()
        AllocationChange.objects.filter(pk__gt=mark).update(created_at=moment)
        touched = AllocationChange.objects.filter(pk__gt=mark).values("consumer_uuid")
        Consumer.objects.filter(uuid__in=touched).update(updated_at=moment)
        Consumer.objects.filter(uuid__in=list(created)).update(created_at=moment)

    def until(self, moment):
        while self.next_snapshot <= moment:
            snapshots.take(now=self.next_snapshot, force=True)
            self.snapshots += 1
            self.next_snapshot += SNAPSHOT_EVERY


# The two instances that come and go: (instance, day up, day down).
DELETED = ((12, 2, 6), (13, 4, 9))


def _demo_providers(*, write) -> tuple:
    """The providers (written, or with ``write=False`` only their uuids):
    (the pool, [(compute node, [NUMA cells], NIC), ...])."""
    if write:
        catalog_sync()
        trait_ensure(name="CUSTOM_PHYSNET_DATA")
    aggregate = _uuid("aggregate", "rack-a")
    pool = _provider("storage-pool", inventories={
        "DISK_GB": {"total": 20000, "reserved": 500, "max_unit": 2000}},
        traits=["MISC_SHARES_VIA_AGGREGATE"], write=write)
    if write:
        provider_aggregates_set(uuid=pool, aggregate_uuids=[aggregate])
    nodes = []
    for n in range(1, 5):
        name = f"compute-{n:02d}"
        traits = ["COMPUTE_STATUS_DISABLED"] if n == 4 else []
        cn = _provider(name, inventories={
            "MEMORY_MB": {"total": 262144, "reserved": 8192, "max_unit": 131072}},
            traits=["HW_CPU_X86_AVX2", *traits], write=write)
        if n < 4 and write:
            provider_aggregates_set(uuid=cn, aggregate_uuids=[aggregate])
        cells = [
            _provider(f"{name}-numa{cell}", parent=cn, inventories={
                # compute-03 has two dedicated cores a cell: once pinned,
                # only shared-CPU flavors fit there.
                "PCPU": {"total": 2, "max_unit": 2} if n == 3 else {"total": 16, "max_unit": 16},
                "VCPU": {"total": 16, "allocation_ratio": 4.0, "max_unit": 16}},
                traits=["HW_NUMA_ROOT"], write=write)
            for cell in (0, 1)
        ]
        nic = _provider(f"{name}-nic0", parent=cn, inventories={
            "SRIOV_NET_VF": {"total": 8},
            "NET_BW_EGR_KILOBIT_PER_SEC": {"total": 25_000_000}},
            traits=["CUSTOM_PHYSNET_DATA"], write=write)
        nodes.append((cn, cells, nic))
    return pool, nodes


def _timeline(layout, start, now) -> list:
    """The fortnight's allocation writes, oldest first: (moment, write, uuids
    of the consumers it creates)."""
    pool, nodes = layout

    def flavor_on(i, node):
        """Instance ``i``'s resources on ``node`` (its host, a NUMA cell, the
        NIC for every third one, a disk from the pool)."""
        cn, cells, nic = node
        allocations = {
            cn: {"MEMORY_MB": 8192 * (1 + i % 2)},
            cells[i % 2]: {"VCPU": 4, "PCPU": 2 if i % 4 == 0 else 0},
            pool: {"DISK_GB": 80},
        }
        if i % 3 == 0:
            allocations[nic] = {"SRIOV_NET_VF": 1, "NET_BW_EGR_KILOBIT_PER_SEC": 1_000_000}
        return {rp: {rc: n for rc, n in res.items() if n} for rp, res in allocations.items()}

    def consumer(uuid, allocations, project, consumer_type):
        return ConsumerAllocations(uuid=uuid, allocations=allocations, project_id=project,
                                   user_id="demo-user", consumer_type=consumer_type)

    hour, day = datetime.timedelta(hours=1), datetime.timedelta(days=1)
    events = []  # (moment, write, uuids of the consumers it creates)

    def put(moment, i, allocations, project=None, new=False):
        request = consumer(_uuid("instance", i), allocations,
                           project or f"project-{'abc'[i % 3]}", "INSTANCE")
        events.append((moment, lambda: allocations_replace(requests=[request]),
                       [request.uuid] if new else []))

    # Twelve instances boot over the first ten days on compute-01..03
    # (instance 4 with half its memory at first); two more come and go.
    for i in range(12):
        allocations = flavor_on(i, nodes[i % 3])
        if i == 4:
            allocations[nodes[1][0]] = {"MEMORY_MB": 4096}
        put(start + hour * (3 + 20 * i), i, allocations, new=True)
    for i, up, down in DELETED:
        put(start + day * up + hour * 5, i, flavor_on(i, nodes[i % 3]), new=True)
        events.append((start + day * down + hour * 7,
                       lambda u=_uuid("instance", i): allocations_delete(consumer_uuid=u), []))
    # Instance 4 is resized to its full memory; later project-b hands it
    # over to project-c (a change of owner, the same amounts).
    put(start + day * 10 + hour * 14, 4, flavor_on(4, nodes[1]))
    put(start + day * 12 + hour * 9, 4, flavor_on(4, nodes[1]), project="project-c")
    # Instance 0 is being moved from compute-01 to compute-02, as Nova moves
    # one: the migration record takes what the instance held on the source,
    # the instance takes the destination's share (one POST /allocations).
    source, destination = nodes[0], nodes[1]
    move = [consumer(_uuid("migration", 0), flavor_on(0, source), "project-a", "MIGRATION"),
            consumer(_uuid("instance", 0), flavor_on(0, destination), "project-a", "INSTANCE")]
    events.append((now - 3 * hour, lambda: allocations_replace(requests=move), [move[0].uuid]))
    return sorted(events, key=lambda e: e[0])
