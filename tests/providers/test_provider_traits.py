"""GET/PUT/DELETE /resource_providers/{uuid}/traits (1.6+)."""
import pytest

from providers.models import ProviderTrait
from tests.factories import ResourceProviderFactory, trait


def _url(provider):
    return f"/resource_providers/{provider.uuid}/traits"


def _linked(provider):
    return sorted(
        ProviderTrait.objects.filter(resource_provider=provider).values_list("trait__name", flat=True)
    )


def _error(response):
    return response.json()["errors"][0]


def test_not_before_1_6(api):
    provider = ResourceProviderFactory()
    assert api.get(_url(provider), mv="1.5").status_code == 404
    assert api.put(_url(provider), mv="1.5",
                   json={"traits": [], "resource_provider_generation": 0}).status_code == 404
    assert api.delete(_url(provider), mv="1.5").status_code == 404


@pytest.mark.parametrize("method", ["get", "put", "delete"])
def test_unknown_provider_is_404(api, method):
    kwargs = {"json": {"traits": [], "resource_provider_generation": 0}} if method == "put" else {}
    response = getattr(api, method)("/resource_providers/non_existed/traits", mv="1.6", **kwargs)
    assert response.status_code == 404
    assert "No resource provider with uuid non_existed found" in _error(response)["detail"]


def test_get_empty(api):
    provider = ResourceProviderFactory()
    response = api.get(_url(provider), mv="1.6")
    assert response.json() == {"traits": [], "resource_provider_generation": 0}
    assert "cache-control" not in response


def test_put_sets_traits_and_bumps_generation(api):
    trait("CUSTOM_TRAIT_1")
    provider = ResourceProviderFactory()
    response = api.put(_url(provider), mv="1.6",
                       json={"traits": ["CUSTOM_TRAIT_1", "HW_CPU_X86_AVX"],
                             "resource_provider_generation": 0})
    assert response.status_code == 200
    assert response.json() == {"traits": ["CUSTOM_TRAIT_1", "HW_CPU_X86_AVX"],
                               "resource_provider_generation": 1}
    assert _linked(provider) == ["CUSTOM_TRAIT_1", "HW_CPU_X86_AVX"]
    response = api.put(_url(provider), mv="1.6",
                       json={"traits": ["HW_CPU_X86_SSE"], "resource_provider_generation": 1})
    assert response.json()["resource_provider_generation"] == 2
    assert _linked(provider) == ["HW_CPU_X86_SSE"]
    body = api.get(_url(provider), mv="1.6").json()
    assert body == {"traits": ["HW_CPU_X86_SSE"], "resource_provider_generation": 2}


def test_put_unknown_traits_is_400_and_changes_nothing(api):
    provider = ResourceProviderFactory()
    response = api.put(_url(provider), mv="1.6",
                       json={"traits": ["NON_EXISTED_TRAIT1", "NON_EXISTED_TRAIT2",
                                        "HW_CPU_X86_AVX"],
                             "resource_provider_generation": 0})
    assert response.status_code == 400
    detail = _error(response)["detail"]
    assert "No such trait(s): NON_EXISTED_TRAIT1, NON_EXISTED_TRAIT2." in detail
    provider.refresh_from_db()
    assert provider.generation == 0
    assert _linked(provider) == []


@pytest.mark.parametrize(
    "body, fragment",
    [
        ({"traits": ["HW_CPU_X86_AVX"]}, "'resource_provider_generation' is a required property"),
        ({"traits": ["HW_CPU_X86_AVX"], "resource_provider_generation": "invalid_generation"},
         "'invalid_generation' is not of type 'integer'"),
        ({"traits": "invalid_type", "resource_provider_generation": 0},
         "'invalid_type' is not of type 'array'"),
        ({"traits": [], "resource_provider_generation": 0, "additional": 1},
         "Additional properties are not allowed"),
    ],
)
def test_put_bad_body_is_400(api, body, fragment):
    provider = ResourceProviderFactory()
    response = api.put(_url(provider), mv="1.6", json=body)
    assert response.status_code == 400
    assert fragment in _error(response)["detail"]


def test_put_stale_generation_is_409(api):
    provider = ResourceProviderFactory()
    response = api.put(_url(provider), mv="1.23",
                       json={"traits": ["HW_CPU_X86_AVX"], "resource_provider_generation": 5})
    assert response.status_code == 409
    error = _error(response)
    assert error["code"] == "placement.concurrent_update"
    assert ("Resource provider's generation already changed. Please update the generation "
            "and try again.") in error["detail"]
    assert _linked(provider) == []


def test_two_writers_same_generation_first_wins(api):
    provider = ResourceProviderFactory()
    generation = api.get(_url(provider), mv="1.6").json()["resource_provider_generation"]
    first = api.put(_url(provider), mv="1.23",
                    json={"traits": ["HW_CPU_X86_AVX"], "resource_provider_generation": generation})
    second = api.put(_url(provider), mv="1.23",
                     json={"traits": ["HW_CPU_X86_SSE"], "resource_provider_generation": generation})
    assert first.status_code == 200
    assert second.status_code == 409
    assert _error(second)["code"] == "placement.concurrent_update"
    assert _linked(provider) == ["HW_CPU_X86_AVX"]


def test_delete_removes_all_and_bumps_generation(api):
    provider = ResourceProviderFactory()
    ProviderTrait.objects.create(resource_provider=provider, trait=trait("HW_CPU_X86_AVX"))
    response = api.delete(_url(provider), mv="1.6")
    assert response.status_code == 204
    assert response.content == b""
    assert _linked(provider) == []
    provider.refresh_from_db()
    assert provider.generation == 1


def test_delete_after_a_write_makes_the_old_generation_stale(api):
    provider = ResourceProviderFactory()
    api.put(_url(provider), mv="1.6",
            json={"traits": ["HW_CPU_X86_SSE"], "resource_provider_generation": 0})
    api.delete(_url(provider), mv="1.6")
    response = api.put(_url(provider), mv="1.23",
                       json={"traits": ["HW_CPU_X86_AVX"], "resource_provider_generation": 1})
    assert response.status_code == 409


def test_needs_admin(api):
    provider = ResourceProviderFactory()
    assert api.get(_url(provider), mv="1.6", token="user").status_code == 403
    response = api.put(_url(provider), mv="1.6", token="user",
                       json={"traits": ["HW_CPU_X86_AVX"], "resource_provider_generation": 0})
    assert response.status_code == 403
    assert api.delete(_url(provider), mv="1.6", token="user").status_code == 403
    provider.refresh_from_db()
    assert provider.generation == 0


def test_cache_headers_from_1_15(api):
    provider = ResourceProviderFactory()
    response = api.put(_url(provider), mv="1.14",
                       json={"traits": [], "resource_provider_generation": 0})
    assert "cache-control" not in response
    # The same (empty) set again: the generation did not move.
    response = api.put(_url(provider), mv="1.15",
                       json={"traits": [], "resource_provider_generation": 0})
    assert response["cache-control"] == "no-cache"
    assert response["last-modified"].endswith("GMT")
