"""Aggregate uuids come back exactly as the client spelled them.

openstacksdk's functional test sets ``uuid.uuid4().hex`` (no dashes) and
expects the same strings back from PUT and GET; upstream stores the string as
sent.  Filters still find the provider whichever way the uuid is written.
"""
import uuid

import pytest

from tests.factories import ResourceProviderFactory

pytestmark = pytest.mark.django_db


def _url(provider):
    return f"/resource_providers/{provider.uuid}/aggregates"


@pytest.mark.parametrize("mv", ["1.1", "1.19"])
def test_dashless_aggregates_are_echoed_as_sent(api, mv):
    provider = ResourceProviderFactory()
    aggs = [uuid.uuid4().hex, uuid.uuid4().hex]
    body = aggs if mv == "1.1" else {"aggregates": aggs, "resource_provider_generation": 0}
    response = api.put(_url(provider), mv=mv, json=body)
    assert response.status_code == 200
    assert sorted(response.json()["aggregates"]) == sorted(aggs)
    assert sorted(api.get(_url(provider), mv=mv).json()["aggregates"]) == sorted(aggs)


def test_member_of_matches_either_spelling(api):
    provider = ResourceProviderFactory()
    agg = uuid.uuid4()
    api.put(_url(provider), mv="1.1", json=[agg.hex])
    for spelled in (agg.hex, str(agg), str(agg).upper()):
        listed = api.get(f"/resource_providers?member_of={spelled}", mv="1.3").json()
        assert [p["uuid"] for p in listed["resource_providers"]] == [str(provider.uuid)]
    other = api.get(f"/resource_providers?member_of={uuid.uuid4().hex}", mv="1.3").json()
    assert other["resource_providers"] == []
    forbidden = api.get(f"/resource_providers?member_of=!{agg}", mv="1.32").json()
    assert str(provider.uuid) not in [p["uuid"] for p in forbidden["resource_providers"]]
