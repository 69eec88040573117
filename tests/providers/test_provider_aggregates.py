"""GET/PUT /resource_providers/{uuid}/aggregates (1.1+; generations from 1.19)."""
import uuid

import pytest

from providers.models import Aggregate, ProviderAggregate
from tests.factories import ResourceProviderFactory

AGG_1 = "f918801a-5e54-4bee-9095-09a9d0c786b8"
AGG_2 = "a893eb5c-e2a0-4251-ab26-f71d3b0cfc0b"


def _url(provider):
    return f"/resource_providers/{provider.uuid}/aggregates"


def _linked(provider):
    return sorted(
        ProviderAggregate.objects.filter(resource_provider=provider).values_list(
            "aggregate__uuid", flat=True
        )
    )


def _error(response):
    return response.json()["errors"][0]


def test_not_before_1_1(api):
    provider = ResourceProviderFactory()
    assert api.get(_url(provider), mv="1.0").status_code == 404
    assert api.put(_url(provider), mv="1.0", json=[AGG_1]).status_code == 404
    assert _linked(provider) == []


def test_unknown_provider_is_404_even_with_a_bad_body(api):
    url = f"/resource_providers/{uuid.uuid4()}/aggregates"
    assert api.get(url, mv="1.19").status_code == 404
    assert api.put(url, mv="1.19", json=[]).status_code == 404


def test_get_empty_then_generation_from_1_19(api):
    provider = ResourceProviderFactory()
    assert api.get(_url(provider), mv="1.1").json() == {"aggregates": []}
    assert api.get(_url(provider), mv="1.19").json() == {
        "aggregates": [], "resource_provider_generation": 0}


def test_put_list_body_before_1_19_does_not_bump_generation(api):
    provider = ResourceProviderFactory()
    response = api.put(_url(provider), mv="1.18", json=[AGG_1, AGG_2])
    assert response.status_code == 200
    assert response.json() == {"aggregates": [AGG_1, AGG_2]}
    provider.refresh_from_db()
    assert provider.generation == 0
    assert _linked(provider) == sorted([AGG_1, AGG_2])
    assert Aggregate.objects.count() == 2


def test_put_from_1_19_checks_and_bumps_generation(api):
    provider = ResourceProviderFactory()
    response = api.put(_url(provider), mv="1.19",
                       json={"aggregates": [AGG_1, AGG_2], "resource_provider_generation": 0})
    assert response.status_code == 200
    assert response.json() == {"aggregates": [AGG_1, AGG_2], "resource_provider_generation": 1}
    provider.refresh_from_db()
    assert provider.generation == 1
    response = api.put(_url(provider), mv="1.19",
                       json={"aggregates": [AGG_2], "resource_provider_generation": 1})
    assert response.json()["resource_provider_generation"] == 2
    assert _linked(provider) == [AGG_2]
    # The aggregate rows stay; only the link goes.
    assert Aggregate.objects.filter(uuid=AGG_1).exists()


def test_put_stale_generation_is_409(api):
    provider = ResourceProviderFactory()
    api.put(_url(provider), mv="1.19",
            json={"aggregates": [AGG_1], "resource_provider_generation": 0})
    response = api.put(_url(provider), mv="1.23",
                       json={"aggregates": [], "resource_provider_generation": 0})
    assert response.status_code == 409
    assert _error(response)["code"] == "placement.concurrent_update"
    assert "generation already changed" in _error(response)["detail"]
    assert _linked(provider) == [AGG_1]


def test_two_writers_same_generation_first_wins(api):
    provider = ResourceProviderFactory()
    generation = api.get(_url(provider), mv="1.19").json()["resource_provider_generation"]
    first = api.put(_url(provider), mv="1.23",
                    json={"aggregates": [AGG_1], "resource_provider_generation": generation})
    second = api.put(_url(provider), mv="1.23",
                     json={"aggregates": [AGG_2], "resource_provider_generation": generation})
    assert first.status_code == 200
    assert second.status_code == 409
    assert _error(second)["code"] == "placement.concurrent_update"
    assert _linked(provider) == [AGG_1]


@pytest.mark.parametrize(
    "mv, body, fragment",
    [
        ("1.19", [AGG_1, AGG_2], "JSON does not validate"),
        ("1.18", {"aggregates": [AGG_1], "resource_provider_generation": 0},
         "JSON does not validate"),
        ("1.19", {"aggregates": [AGG_1]}, "'resource_provider_generation' is a required property"),
        ("1.19", {"aggregates": ["harry", "sally"], "resource_provider_generation": 0},
         "is not a 'uuid'"),
        ("1.19", {"aggregates": [AGG_1, AGG_1], "resource_provider_generation": 0},
         "has non-unique elements"),
        ("1.18", ["harry"], "is not a 'uuid'"),
    ],
)
def test_put_bad_body_is_400(api, mv, body, fragment):
    provider = ResourceProviderFactory()
    response = api.put(_url(provider), mv=mv, json=body)
    assert response.status_code == 400
    assert fragment in _error(response)["detail"]
    assert _linked(provider) == []
    provider.refresh_from_db()
    assert provider.generation == 0


def test_put_malformed_json(api):
    provider = ResourceProviderFactory()
    response = api.put(_url(provider), mv="1.19", data=b'{"bad", "not json"}',
                       content_type="application/json")
    assert response.status_code == 400
    assert "Malformed JSON" in _error(response)["detail"]


def test_needs_admin(api):
    provider = ResourceProviderFactory()
    assert api.get(_url(provider), mv="1.19", token="user").status_code == 403
    response = api.put(_url(provider), mv="1.19", token="user",
                       json={"aggregates": [AGG_1], "resource_provider_generation": 0})
    assert response.status_code == 403
    assert _linked(provider) == []


def test_cache_headers_only_from_1_15(api):
    provider = ResourceProviderFactory()
    response = api.put(_url(provider), mv="1.14", json=[AGG_1])
    assert "cache-control" not in response and "last-modified" not in response
    response = api.get(_url(provider), mv="1.15")
    assert response["cache-control"] == "no-cache"
