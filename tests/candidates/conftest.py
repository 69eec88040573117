"""Builders of provider trees for the candidate tests (factories + ORM)."""
import pytest

from providers.models import ProviderAggregate, ProviderTrait
from tests.factories import (
    AggregateFactory,
    AllocationFactory,
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


@pytest.fixture
def world(db):
    return World()


def uuids_in(body):
    """Set of frozensets of provider uuids per allocation request (dict form)."""
    return {frozenset(ar["allocations"]) for ar in body["allocation_requests"]}
