"""The reshaper tests' builders and read-backs (factories and the ORM)."""
from allocations.models import Allocation
from providers.models import Inventory
from tests.factories import (
    AllocationFactory,
    ConsumerFactory,
    InventoryFactory,
    ResourceProviderFactory,
    resource_class,
)


def add_inventory(provider, rc, total, **kw):
    kw.setdefault("max_unit", total)
    return InventoryFactory(resource_provider=provider, resource_class=resource_class(rc),
                            total=total, **kw)


def add_allocation(consumer, provider, rc, used):
    return AllocationFactory(consumer=consumer, resource_provider=provider,
                             resource_class=resource_class(rc), used=used)


def holdings(consumer_uuid) -> dict:
    """{provider uuid: {class: used}} of one consumer, from the database."""
    result = {}
    for row in Allocation.objects.filter(consumer__uuid=consumer_uuid).select_related(
        "resource_provider", "resource_class"
    ):
        result.setdefault(row.resource_provider.uuid, {})[row.resource_class.name] = row.used
    return result


def inventory_of(provider) -> dict:
    return {
        inv.resource_class.name: inv.total
        for inv in Inventory.objects.filter(resource_provider=provider).select_related(
            "resource_class"
        )
    }


class World:
    """A compute node with VGPU inventory used by two instances, and two new GPU children."""

    def __init__(self):
        self.root = ResourceProviderFactory(name="compute1", generation=5)
        add_inventory(self.root, "VCPU", 8)
        add_inventory(self.root, "MEMORY_MB", 4096)
        add_inventory(self.root, "VGPU", 4)
        self.c1 = ConsumerFactory(generation=1)
        self.c2 = ConsumerFactory(generation=1)
        add_allocation(self.c1, self.root, "VCPU", 2)
        add_allocation(self.c1, self.root, "MEMORY_MB", 1024)
        add_allocation(self.c1, self.root, "VGPU", 1)
        add_allocation(self.c2, self.root, "VCPU", 1)
        add_allocation(self.c2, self.root, "VGPU", 2)
        self.gpu1 = ResourceProviderFactory(name="compute1_pgpu0", parent=self.root)
        self.gpu2 = ResourceProviderFactory(name="compute1_pgpu1", parent=self.root)

    def consumer_body(self, consumer, allocations, generation=..., **extra):
        body = {
            "allocations": {rp: {"resources": res} for rp, res in allocations.items()},
            "project_id": consumer.project.external_id,
            "user_id": consumer.user.external_id,
            "consumer_generation": consumer.generation if generation is ... else generation,
        }
        body.update(extra)
        return body

    def body(self, **extra):
        """The reshape that moves VGPU inventory and its allocations to the children."""
        root, gpu1, gpu2 = self.root.uuid, self.gpu1.uuid, self.gpu2.uuid
        data = {
            "inventories": {
                root: {
                    "resource_provider_generation": self.root.generation,
                    "inventories": {
                        "VCPU": {"total": 8, "max_unit": 8},
                        "MEMORY_MB": {"total": 4096, "max_unit": 4096},
                    },
                },
                gpu1: {
                    "resource_provider_generation": 0,
                    "inventories": {"VGPU": {"total": 2, "max_unit": 2}},
                },
                gpu2: {
                    "resource_provider_generation": 0,
                    "inventories": {"VGPU": {"total": 2, "max_unit": 2}},
                },
            },
            "allocations": {
                self.c1.uuid: self.consumer_body(
                    self.c1, {root: {"VCPU": 2, "MEMORY_MB": 1024}, gpu1: {"VGPU": 1}}, **extra
                ),
                self.c2.uuid: self.consumer_body(
                    self.c2, {root: {"VCPU": 1}, gpu2: {"VGPU": 2}}, **extra
                ),
            },
        }
        return data
