"""Bulk test data for the console: N compute nodes (each with a NUMA child),
a sharing disk provider per 10 nodes via aggregates, traits, consumers."""
import uuid

from allocations.models import Allocation, Consumer, ConsumerType, Project, User
from providers.models import Aggregate, Inventory, ProviderAggregate, ProviderTrait, ResourceProvider
from resource_classes.models import ResourceClass, Trait


def populate(n_nodes=100):
    rc = {name: ResourceClass.objects.get(name=name).pk for name in ("VCPU", "MEMORY_MB", "DISK_GB")}
    avx = Trait.objects.get(name="HW_CPU_X86_AVX").pk
    share = Trait.objects.get(name="MISC_SHARES_VIA_AGGREGATE").pk
    roots = [ResourceProvider(uuid=str(uuid.uuid4()), name=f"cn{i:04d}") for i in range(n_nodes)]
    shared = [ResourceProvider(uuid=str(uuid.uuid4()), name=f"disk{i:03d}")
              for i in range(max(1, n_nodes // 10))]
    ResourceProvider.objects.bulk_create(roots + shared)
    roots = list(ResourceProvider.objects.filter(name__startswith="cn").order_by("name"))
    shared = list(ResourceProvider.objects.filter(name__startswith="disk").order_by("name"))
    for rp in roots + shared:
        rp.root_id = rp.pk
    ResourceProvider.objects.bulk_update(roots + shared, ["root_id"])
    children = [ResourceProvider(uuid=str(uuid.uuid4()), name=f"{r.name}-numa0", parent_id=r.pk,
                                 root_id=r.pk) for r in roots]
    ResourceProvider.objects.bulk_create(children)
    children = list(ResourceProvider.objects.filter(name__endswith="-numa0").order_by("name"))
    aggs = [Aggregate(uuid=str(uuid.uuid4())) for _ in shared]
    Aggregate.objects.bulk_create(aggs)
    aggs = list(Aggregate.objects.order_by("pk"))
    inv, links, traits = [], [], []
    for i, child in enumerate(children):
        inv.append(Inventory(resource_provider_id=child.pk, resource_class_id=rc["VCPU"], total=32,
                             max_unit=32, allocation_ratio=4.0))
        inv.append(Inventory(resource_provider_id=child.pk, resource_class_id=rc["MEMORY_MB"],
                             total=65536, reserved=2048, max_unit=65536, allocation_ratio=1.0))
        if i % 2 == 0:
            traits.append(ProviderTrait(resource_provider_id=child.pk, trait_id=avx))
        links.append(ProviderAggregate(resource_provider_id=roots[i].pk,
                                       aggregate_id=aggs[i % len(aggs)].pk))
    for j, disk in enumerate(shared):
        inv.append(Inventory(resource_provider_id=disk.pk, resource_class_id=rc["DISK_GB"],
                             total=10000, max_unit=10000))
        traits.append(ProviderTrait(resource_provider_id=disk.pk, trait_id=share))
        links.append(ProviderAggregate(resource_provider_id=disk.pk, aggregate_id=aggs[j].pk))
    Inventory.objects.bulk_create(inv)
    ProviderTrait.objects.bulk_create(traits)
    ProviderAggregate.objects.bulk_create(links)
    project = Project.objects.create(external_id="proj-1")
    user = User.objects.create(external_id="user-1")
    ctype, _ = ConsumerType.objects.get_or_create(name="INSTANCE")
    consumers = [Consumer(uuid=str(uuid.uuid4()), project=project, user=user, consumer_type=ctype,
                          generation=1) for _ in children]
    Consumer.objects.bulk_create(consumers)
    consumers = list(Consumer.objects.order_by("pk"))
    allocs = []
    for i, (child, c) in enumerate(zip(children, consumers)):
        allocs.append(Allocation(consumer_id=c.pk, resource_provider_id=child.pk,
                                 resource_class_id=rc["VCPU"], used=4 + (i % 8) * 14))
        allocs.append(Allocation(consumer_id=c.pk, resource_provider_id=child.pk,
                                 resource_class_id=rc["MEMORY_MB"], used=4096))
        allocs.append(Allocation(consumer_id=c.pk, resource_provider_id=shared[i % len(shared)].pk,
                                 resource_class_id=rc["DISK_GB"], used=100))
    Allocation.objects.bulk_create(allocs)
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
