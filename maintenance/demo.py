"""A small, realistic cloud for a first look at the console (``make demo``),
written through the services as the API would write it.

Four compute nodes, each with two NUMA cells (PCPU, VCPU, MEMORY_MB) and an
SR-IOV NIC (SRIOV_NET_VF, bandwidth); a shared storage pool (DISK_GB) in the
aggregate of the first three; traits; twelve instances spread over the
nodes, one of them moving from compute-01 to compute-02 (its MIGRATION
consumer holds the source host's allocations, the instance the
destination's, as Nova does during a move); the fourth node disabled.
"""
from __future__ import annotations

import uuid

from django.db import transaction

from allocations.services import ConsumerAllocations, allocations_replace
from providers.inventory_services import InventorySpec, inventories_replace
from providers.services import provider_aggregates_set, provider_create, provider_traits_set
from resource_classes.services import catalog_sync, trait_ensure

DEMO = uuid.UUID("00000000-0000-4000-8000-000000000000")


def _uuid(*parts) -> str:
    """Stable uuids, so a second run finds the same providers."""
    return str(uuid.uuid5(DEMO, "/".join(str(p) for p in parts)))


def _provider(name, parent=None, inventories=None, traits=()):
    rp = provider_create(name=name, uuid=_uuid(name), parent_provider_uuid=parent)
    if inventories:
        rp, _ = inventories_replace(
            provider_uuid=rp.uuid, generation=rp.generation,
            inventories={rc: InventorySpec(**spec) for rc, spec in inventories.items()},
            reserved_may_equal_total=True)
    if traits:
        provider_traits_set(uuid=rp.uuid, trait_names=list(traits), generation=rp.generation)
    return rp.uuid


def demo_cloud() -> dict:
    """Create the cloud: the providers in one transaction, then the
    instances in one allocation write (which is its own outermost
    transaction, as every allocation write is); returns counts."""
    with transaction.atomic():
        requests = _demo_providers()
    allocations_replace(requests=requests)
    return {"providers": 1 + 4 * 4, "consumers": len(requests)}


def _demo_providers() -> list:
    """The providers, and the allocation requests of the instances on them."""
    catalog_sync()
    trait_ensure(name="CUSTOM_PHYSNET_DATA")
    aggregate = _uuid("aggregate", "rack-a")
    pool = _provider("storage-pool", inventories={
        "DISK_GB": {"total": 20000, "reserved": 500, "max_unit": 2000}},
        traits=["MISC_SHARES_VIA_AGGREGATE"])
    provider_aggregates_set(uuid=pool, aggregate_uuids=[aggregate])
    nodes = []
    for n in range(1, 5):
        name = f"compute-{n:02d}"
        traits = ["COMPUTE_STATUS_DISABLED"] if n == 4 else []
        cn = _provider(name, inventories={
            "MEMORY_MB": {"total": 262144, "reserved": 8192, "max_unit": 131072}},
            traits=["HW_CPU_X86_AVX2", *traits])
        if n < 4:
            provider_aggregates_set(uuid=cn, aggregate_uuids=[aggregate])
        cells = [
            _provider(f"{name}-numa{cell}", parent=cn, inventories={
                "PCPU": {"total": 16, "max_unit": 16},
                "VCPU": {"total": 16, "allocation_ratio": 4.0, "max_unit": 16}},
                traits=["HW_NUMA_ROOT"])
            for cell in (0, 1)
        ]
        nic = _provider(f"{name}-nic0", parent=cn, inventories={
            "SRIOV_NET_VF": {"total": 8},
            "NET_BW_EGR_KILOBIT_PER_SEC": {"total": 25_000_000}},
            traits=["CUSTOM_PHYSNET_DATA"])
        nodes.append((cn, cells, nic))

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

    # Instance 0 is being moved from compute-01 to compute-02, as Nova moves
    # one: the migration record holds what the instance held on the source,
    # the instance already holds the destination's share.
    source, destination = nodes[0], nodes[1]
    requests = [
        consumer(_uuid("instance", i), flavor_on(i, destination if i == 0 else nodes[i % 3]),
                 f"project-{'abc'[i % 3]}", "INSTANCE")
        for i in range(12)
    ]
    requests.append(consumer(_uuid("migration", 0), flavor_on(0, source), "project-a",
                             "MIGRATION"))
    return requests
