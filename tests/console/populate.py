"""Bulk test data for the console: N compute nodes (each with a NUMA child),
a sharing disk provider per 10 nodes via aggregates, traits, consumers.

The rows come from tests/factories.py so the console's cloud and every other
test's rows are built one way; the names, amounts and creation order (hence
the ids) are the ones the console's figure tests count against."""
import uuid

import factory

from tests.factories import (
    AggregateFactory, AllocationFactory, ConsumerFactory, ConsumerTypeFactory, InventoryFactory,
    ProjectFactory, ProviderAggregateFactory, ProviderTraitFactory, ResourceProviderFactory,
    UserFactory, resource_class, trait,
)


def _each(rows):
    """One value per row of a batch, in order."""
    return factory.Iterator(rows, cycle=False)


def populate(n_nodes=100):
    vcpu, memory, disk = (resource_class(name) for name in ("VCPU", "MEMORY_MB", "DISK_GB"))
    n_shared = max(1, n_nodes // 10)
    roots = ResourceProviderFactory.create_batch(
        n_nodes, name=_each([f"cn{i:04d}" for i in range(n_nodes)]))
    shared = ResourceProviderFactory.create_batch(
        n_shared, name=_each([f"disk{i:03d}" for i in range(n_shared)]))
    children = ResourceProviderFactory.create_batch(
        n_nodes, parent=_each(roots), name=_each([f"{r.name}-numa0" for r in roots]))
    aggs = AggregateFactory.create_batch(n_shared)
    # A node's NUMA child holds its CPU and memory; node i joins pool i % n_shared.
    # VCPU capacity 32 x 4.0 = 128 per child; memory 65536 with 2048 reserved.
    InventoryFactory.create_batch(n_nodes, resource_provider=_each(children), resource_class=vcpu,
                                  total=32, allocation_ratio=4.0)
    InventoryFactory.create_batch(n_nodes, resource_provider=_each(children),
                                  resource_class=memory, total=65536, reserved=2048)
    InventoryFactory.create_batch(n_shared, resource_provider=_each(shared), resource_class=disk,
                                  total=10000)
    avx_children = children[::2]
    ProviderTraitFactory.create_batch(len(avx_children), resource_provider=_each(avx_children),
                                      trait=trait("HW_CPU_X86_AVX"))
    ProviderTraitFactory.create_batch(n_shared, resource_provider=_each(shared),
                                      trait=trait("MISC_SHARES_VIA_AGGREGATE"))
    ProviderAggregateFactory.create_batch(
        n_nodes, resource_provider=_each(roots),
        aggregate=_each([aggs[i % n_shared] for i in range(n_nodes)]))
    ProviderAggregateFactory.create_batch(n_shared, resource_provider=_each(shared),
                                          aggregate=_each(aggs))
    # One instance per child: VCPU 4 to 102 in steps of 14, 4 GiB, 100 GB from its pool.
    consumers = ConsumerFactory.create_batch(
        n_nodes, project=ProjectFactory(external_id="proj-1"),
        user=UserFactory(external_id="user-1"), consumer_type=ConsumerTypeFactory(name="INSTANCE"))
    AllocationFactory.create_batch(n_nodes, consumer=_each(consumers),
                                   resource_provider=_each(children), resource_class=vcpu,
                                   used=_each([4 + (i % 8) * 14 for i in range(n_nodes)]))
    AllocationFactory.create_batch(n_nodes, consumer=_each(consumers),
                                   resource_provider=_each(children), resource_class=memory,
                                   used=4096)
    AllocationFactory.create_batch(n_nodes, consumer=_each(consumers),
                                   resource_provider=_each([shared[i % n_shared]
                                                            for i in range(n_nodes)]),
                                   resource_class=disk, used=100)
    return {"roots": roots, "children": children, "shared": shared, "aggregates": aggs,
            "consumers": consumers}


def record_failures(count=12):
    """Scheduling failures recorded as Nova causes them: GET
    /allocation_candidates answering with nothing (captured and explained
    by planning.failures).  Returns the newest record's pk and global
    request id."""
    from django.test import Client

    from planning.models import SchedulingFailure

    client = Client()
    for i in range(count):
        resources = "VCPU:100000" if i % 2 else "DISK_GB:20,MEMORY_MB:70000,VCPU:2"
        response = client.get("/allocation_candidates",
                   {"resources": resources, "limit": "1000",
                    "root_required": "!COMPUTE_STATUS_DISABLED"},
                   HTTP_X_AUTH_TOKEN="admin", HTTP_OPENSTACK_API_VERSION="placement 1.39",
                   HTTP_X_OPENSTACK_REQUEST_ID=f"req-{uuid.uuid4()}")
        assert response.status_code == 200, response.content
    return SchedulingFailure.objects.values_list("pk", "global_request_id").first()
