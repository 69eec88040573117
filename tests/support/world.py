"""Builders of provider trees and the consumers on them (factories + ORM)."""
from providers.models import ProviderAggregate, ProviderTrait
from tests.factories import (
    AggregateFactory,
    AllocationFactory,
    ConsumerFactory,
    InventoryFactory,
    ResourceProviderFactory,
    resource_class,
    trait,
)


class World:
    """Small helper: make providers with inventory, traits and aggregates."""

    def provider(self, name, parent=None, inventory=None, traits=(), aggs=()):
        rp = ResourceProviderFactory(name=name, parent=parent)
        for rc, spec in (inventory or {}).items():
            if isinstance(spec, int):
                spec = {"total": spec}
            InventoryFactory(resource_provider=rp, resource_class=resource_class(rc), **spec)
        for name_ in traits:
            ProviderTrait.objects.create(resource_provider=rp, trait=trait(name_))
        for agg in aggs:
            ProviderAggregate.objects.create(resource_provider=rp, aggregate=agg)
        return rp

    def aggregate(self):
        return AggregateFactory()

    def allocate(self, rp, rc, used):
        AllocationFactory(resource_provider=rp, resource_class=resource_class(rc), used=used)


class PlanningWorld(World):
    def consumer(self, holds, uuid=None):
        """A consumer holding ``{provider: {class: amount}}``."""
        consumer = ConsumerFactory(**({"uuid": uuid} if uuid else {}))
        for rp, amounts in holds.items():
            for rc, n in amounts.items():
                AllocationFactory(consumer=consumer, resource_provider=rp,
                                  resource_class=resource_class(rc), used=n)
        return consumer


def uuids_in(body):
    """Set of frozensets of provider uuids per allocation request (dict form)."""
    return {frozenset(ar["allocations"]) for ar in body["allocation_requests"]}
