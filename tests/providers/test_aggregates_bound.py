"""PUT /resource_providers/{uuid}/aggregates with long lists (issue 28,
item 8): bounded by [placement] max_aggregates_per_request (a 400 past it,
nothing written), and within it the set written is exactly the list,
whatever mix of new, existing and stale aggregates it holds, in bulk
statements rather than one per aggregate."""
import uuid

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from providers.models import Aggregate, ProviderAggregate
from tests.factories import ResourceProviderFactory

pytestmark = pytest.mark.django_db


def _url(provider):
    return f"/resource_providers/{provider.uuid}/aggregates"


def _linked(provider):
    return set(ProviderAggregate.objects.filter(resource_provider=provider).values_list(
        "aggregate__uuid", flat=True))


def _uuids(n):
    return [str(uuid.uuid4()) for _ in range(n)]


@override_settings(PLACEMENT_MAX_AGGREGATES_PER_REQUEST=10)
@pytest.mark.parametrize("mv", ["1.1", "1.19"])
def test_a_list_past_the_bound_is_a_400_and_nothing_is_written(api, mv):
    provider = ResourceProviderFactory()
    kept = _uuids(2)
    api.put(_url(provider), mv="1.1", json=kept)
    aggregates = _uuids(11)
    body = aggregates if mv == "1.1" else {"aggregates": aggregates,
                                            "resource_provider_generation": 0}
    response = api.put(_url(provider), mv=mv, json=body)
    assert response.status_code == 400
    assert "at most 10 aggregates; this one names 11" in response.json()["errors"][0]["detail"]
    assert "max_aggregates_per_request" in response.json()["errors"][0]["detail"]
    assert _linked(provider) == set(kept)
    assert Aggregate.objects.count() == 2
    body = aggregates[:10] if mv == "1.1" else {"aggregates": aggregates[:10],
                                                "resource_provider_generation": 0}
    assert api.put(_url(provider), mv=mv, json=body).status_code == 200
    assert _linked(provider) == set(aggregates[:10])


def test_the_default_bound_is_1000(api, settings):
    assert settings.PLACEMENT_MAX_AGGREGATES_PER_REQUEST == 1000
    provider = ResourceProviderFactory()
    response = api.put(_url(provider), mv="1.1", json=_uuids(1001))
    assert response.status_code == 400
    assert not Aggregate.objects.exists()


def test_a_mixed_list_ends_as_exactly_the_list(api):
    provider = ResourceProviderFactory()
    other = ResourceProviderFactory()
    old = _uuids(300)
    shared = _uuids(200)
    api.put(_url(provider), mv="1.1", json=old)
    api.put(_url(other), mv="1.1", json=shared)
    # Keep a third, drop the rest; add aggregates that exist (on another
    # provider) and new ones; one spelled without dashes.
    undashed = uuid.uuid4().hex
    wanted = old[:100] + shared + _uuids(400) + [undashed]
    response = api.put(_url(provider), mv="1.1", json=wanted)
    assert response.status_code == 200
    assert sorted(response.json()["aggregates"]) == sorted(wanted)
    assert _linked(provider) == set(wanted)
    assert _linked(other) == set(shared)
    # One row per uuid, the existing ones reused.
    assert Aggregate.objects.count() == len(set(old) | set(shared) | set(wanted))
    got = api.get(_url(provider), mv="1.1").json()["aggregates"]
    assert sorted(got) == sorted(wanted)


def test_the_statements_grow_by_batches_not_per_aggregate(api):
    counts = []
    for n in (50, 500):
        provider = ResourceProviderFactory()
        api.put(_url(provider), mv="1.1", json=_uuids(n))  # some to drop
        with CaptureQueriesContext(connection) as queries:
            response = api.put(_url(provider), mv="1.1", json=_uuids(n))
        assert response.status_code == 200
        counts.append(len(queries))
    # Ten times the list (450 more to add and to drop): a few more batches
    # at most (SQLite cuts a bulk insert at 999 parameters), not hundreds.
    assert counts[1] - counts[0] <= 6, counts
