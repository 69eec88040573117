"""The traits (Q5) and aggregates (Q6) of the providers a search loads are
the same rows whether the list of their ids is short or long: on
PostgreSQL a list of 2,000 ids or more goes to the database in another
form (``candidates.sql._planned``), and both forms must read the same:
the counts below lie on both sides of that bound.
"""
import uuid

import pytest

from candidates import sql
from providers.models import Aggregate, ProviderAggregate, ProviderTrait, ResourceProvider
from resource_classes.models import Trait


@pytest.fixture
def many(db):
    """2,100 root providers: every third with a trait or two, every fifth
    in an aggregate, some in two."""
    providers = ResourceProvider.objects.bulk_create(
        ResourceProvider(uuid=str(uuid.uuid4()), name=f"rp{n}") for n in range(2100))
    for rp in providers:
        rp.root = rp
    ResourceProvider.objects.bulk_update(providers, ["root"])
    traits = [Trait.objects.get_or_create(name=name)[0]
              for name in ("HW_CPU_X86_AVX2", "CUSTOM_LONG_LIST")]
    aggs = [Aggregate.objects.create(uuid=str(uuid.uuid4())) for _ in range(2)]
    ProviderTrait.objects.bulk_create(
        [ProviderTrait(trait=traits[0], resource_provider=rp) for rp in providers[::3]]
        + [ProviderTrait(trait=traits[1], resource_provider=rp) for rp in providers[::7]])
    ProviderAggregate.objects.bulk_create(
        [ProviderAggregate(aggregate=aggs[0], resource_provider=rp) for rp in providers[::5]]
        + [ProviderAggregate(aggregate=aggs[1], resource_provider=rp) for rp in providers[::11]])
    return [rp.id for rp in providers]


@pytest.mark.parametrize("count", [100, 1999, 2000, 2100])
def test_traits_and_aggregates_of_short_and_long_lists(many, count):
    ids = many[:count]
    expected_traits = {(t.resource_provider_id, t.trait_id, t.trait.name)
                       for t in ProviderTrait.objects.filter(resource_provider_id__in=ids)
                       .select_related("trait")}
    got = sql.provider_traits(ids)
    assert len(got) == len(expected_traits) and set(got) == expected_traits
    expected_aggs = {(a.resource_provider_id, a.aggregate.uuid)
                     for a in ProviderAggregate.objects.filter(resource_provider_id__in=ids)
                     .select_related("aggregate")}
    got = sql.provider_aggregates(ids)
    assert len(got) == len(expected_aggs) and set(got) == expected_aggs
