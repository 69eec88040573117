"""HTTP behaviour of /traits and /traits/{name}."""
import re

import pytest

from providers.models import ProviderTrait
from resource_classes.models import Trait
from tests.factories import ResourceProviderFactory, TraitFactory

pytestmark = pytest.mark.django_db

INVALID = (
    'The trait is invalid. A valid trait must be no longer than 255 characters, '
    'start with the prefix "CUSTOM_" and use following characters: '
    '"A"-"Z", "0"-"9" and "_"'
)
GMT = re.compile(r"^\w+, \d+ \w+ \d{4} [\d:]+ GMT$")


def detail(response):
    return response.json()["errors"][0]["detail"]


def give(provider, *traits):
    for trait in traits:
        ProviderTrait.objects.create(resource_provider=provider, trait=trait)


@pytest.mark.parametrize(
    "method, path",
    [("GET", "/traits"), ("GET", "/traits/CUSTOM_T"), ("PUT", "/traits/CUSTOM_NEW"),
     ("DELETE", "/traits/CUSTOM_T")],
)
def test_before_1_6_every_route_is_404(api, method, path):
    TraitFactory(name="CUSTOM_T")
    response = api.request(method, path, mv="1.5")
    assert response.status_code == 404
    assert Trait.objects.filter(name="CUSTOM_T").exists()
    assert not Trait.objects.filter(name="CUSTOM_NEW").exists()


def test_post_on_traits_is_405(api):
    response = api.post("/traits", mv="1.6", json={})
    assert response.status_code == 405
    assert response["allow"] == "GET"


# --- PUT ---------------------------------------------------------------------


def test_put_creates_then_confirms(api):
    first = api.put("/traits/CUSTOM_TRAIT_1", mv="1.6")
    assert first.status_code == 201
    assert first["location"].endswith("/traits/CUSTOM_TRAIT_1")
    for header in ("content-type", "cache-control", "last-modified"):
        assert header not in first
    again = api.put("/traits/CUSTOM_TRAIT_1", mv="1.6")
    assert again.status_code == 204
    assert again["location"].endswith("/traits/CUSTOM_TRAIT_1")
    assert "content-type" not in again
    assert Trait.objects.filter(name="CUSTOM_TRAIT_1").count() == 1


def test_put_cache_headers_from_1_15(api):
    assert "cache-control" not in api.put("/traits/CUSTOM_A", mv="1.14")
    created = api.put("/traits/CUSTOM_B", mv="1.15")
    assert created.status_code == 201
    assert created["cache-control"] == "no-cache"
    assert GMT.match(created["last-modified"])
    existing = api.put("/traits/CUSTOM_A", mv="1.15")
    assert existing.status_code == 204
    assert existing["cache-control"] == "no-cache"
    assert GMT.match(existing["last-modified"])


@pytest.mark.parametrize(
    "name", ["TRAIT_X", "CUSTOM_ABC:1", "CUSTOM_lower", "HW_CPU_X86_SSE", "CUSTOM_" + "A" * 249]
)
def test_put_invalid_name_is_400(api, name):
    before = Trait.objects.count()
    response = api.put(f"/traits/{name}", mv="1.6")
    assert response.status_code == 400
    assert INVALID in detail(response)
    assert Trait.objects.count() == before


def test_put_needs_admin(api):
    assert api.put("/traits/CUSTOM_A", mv="1.6", token="user").status_code == 403
    assert not Trait.objects.filter(name="CUSTOM_A").exists()


# --- GET one -------------------------------------------------------------------


def test_get_existing_is_204_without_body(api):
    TraitFactory(name="CUSTOM_T")
    response = api.get("/traits/CUSTOM_T", mv="1.6")
    assert response.status_code == 204
    assert response.content == b""
    for header in ("content-type", "cache-control", "last-modified"):
        assert header not in response
    assert api.get("/traits/HW_CPU_X86_SSE", mv="1.6").status_code == 204


def test_get_cache_headers_from_1_15(api):
    TraitFactory(name="CUSTOM_T")
    assert "last-modified" not in api.get("/traits/CUSTOM_T", mv="1.14")
    response = api.get("/traits/CUSTOM_T", mv="1.15")
    assert response.status_code == 204
    assert response["cache-control"] == "no-cache"
    assert GMT.match(response["last-modified"])


def test_get_unknown_is_404(api):
    response = api.get("/traits/NON_EXISTED", mv="1.6")
    assert response.status_code == 404
    assert "NON_EXISTED" in detail(response)


def test_get_needs_admin(api):
    assert api.get("/traits/HW_CPU_X86_SSE", mv="1.6", token="user").status_code == 403


# --- DELETE ------------------------------------------------------------------------


def test_delete(api):
    TraitFactory(name="CUSTOM_T")
    response = api.delete("/traits/CUSTOM_T", mv="1.6")
    assert response.status_code == 204
    for header in ("content-type", "cache-control", "last-modified"):
        assert header not in response
    assert not Trait.objects.filter(name="CUSTOM_T").exists()
    assert api.delete("/traits/CUSTOM_T", mv="1.15").status_code == 404


def test_delete_unknown_is_404(api):
    response = api.delete("/traits/CUSTOM_NON_EXISTED", mv="1.6")
    assert response.status_code == 404


def test_delete_standard_is_400(api):
    response = api.delete("/traits/HW_CPU_X86_SSE", mv="1.6")
    assert response.status_code == 400
    assert "Cannot delete standard trait" in detail(response)
    assert Trait.objects.filter(name="HW_CPU_X86_SSE").exists()


def test_delete_in_use_is_409(api):
    trait = TraitFactory(name="CUSTOM_T")
    give(ResourceProviderFactory(), trait)
    response = api.delete("/traits/CUSTOM_T", mv="1.6")
    assert response.status_code == 409
    assert "The trait CUSTOM_T is in use by a resource provider." in detail(response)
    assert Trait.objects.filter(name="CUSTOM_T").exists()


def test_delete_needs_admin(api):
    TraitFactory(name="CUSTOM_T")
    assert api.delete("/traits/CUSTOM_T", mv="1.6", token="user").status_code == 403
    assert Trait.objects.filter(name="CUSTOM_T").exists()


# --- list ------------------------------------------------------------------------------


def names(response):
    assert response.status_code == 200, response.content
    return response.json()["traits"]


def test_list_has_standard_and_custom(api):
    TraitFactory(name="CUSTOM_TRAIT_1")
    listed = names(api.get("/traits", mv="1.6"))
    assert {"CUSTOM_TRAIT_1", "MISC_SHARES_VIA_AGGREGATE", "HW_CPU_X86_SHA"} <= set(listed)
    assert len(listed) == Trait.objects.count()
    assert listed == sorted(listed)


def test_list_name_in(api):
    TraitFactory(name="CUSTOM_TRAIT_1")
    TraitFactory(name="CUSTOM_TRAIT_2")
    listed = names(api.get("/traits?name=in:CUSTOM_TRAIT_1,CUSTOM_TRAIT_2,CUSTOM_NOPE", mv="1.6"))
    assert listed == ["CUSTOM_TRAIT_1", "CUSTOM_TRAIT_2"]


def test_list_name_startswith(api):
    for name in ("CUSTOM_TRAIT_1", "CUSTOM_TRAIT_2", "CUSTOM_ANOTHER_TRAIT"):
        TraitFactory(name=name)
    listed = names(api.get("/traits?name=startswith:CUSTOM_TRAIT", mv="1.6"))
    assert listed == ["CUSTOM_TRAIT_1", "CUSTOM_TRAIT_2"]


def test_list_startswith_treats_underscore_literally(api):
    TraitFactory(name="CUSTOM_AXB")
    TraitFactory(name="CUSTOM_A_B")
    assert names(api.get("/traits?name=startswith:CUSTOM_A_", mv="1.6")) == ["CUSTOM_A_B"]


def test_list_associated(api):
    t1, t2 = TraitFactory(name="CUSTOM_ON"), TraitFactory(name="CUSTOM_OFF")
    give(ResourceProviderFactory(), t1)
    give(ResourceProviderFactory(), t1)
    assert names(api.get("/traits?associated=true", mv="1.6")) == ["CUSTOM_ON"]
    assert names(api.get("/traits?associated=True", mv="1.6")) == ["CUSTOM_ON"]
    unassociated = names(api.get("/traits?associated=false", mv="1.6"))
    assert "CUSTOM_OFF" in unassociated and "CUSTOM_ON" not in unassociated
    both = names(api.get("/traits?associated=false&name=startswith:CUSTOM_", mv="1.6"))
    assert both == ["CUSTOM_OFF"]
    del t2


def test_list_bad_name_filter_is_400(api):
    response = api.get("/traits?name=in_abc", mv="1.6")
    assert response.status_code == 400
    assert (
        "Badly formatted name parameter. Expected name query string parameter in form: "
        '?name=[in|startswith]:[name1,name2|prefix]. Got: "in_abc"'
    ) in detail(response)


def test_list_bad_associated_is_400(api):
    response = api.get("/traits?associated=xyz", mv="1.6")
    assert response.status_code == 400
    assert 'The query parameter "associated" only accepts "true" or "false"' in detail(response)


def test_list_unknown_parameter_is_400(api):
    response = api.get("/traits?invalid=abc", mv="1.6")
    assert response.status_code == 400
    assert (
        "Invalid query string parameters: Additional properties are not allowed"
        in detail(response)
    )


def test_list_cache_headers_from_1_15(api):
    old = api.get("/traits", mv="1.14")
    assert "cache-control" not in old and "last-modified" not in old
    new = api.get("/traits", mv="1.15")
    assert new["cache-control"] == "no-cache"
    assert GMT.match(new["last-modified"])


def test_list_needs_admin(api):
    assert api.get("/traits", mv="1.6", token="user").status_code == 403


def test_list_query_count_is_constant(api, django_assert_max_num_queries):
    provider = ResourceProviderFactory()
    give(provider, *[TraitFactory(name=f"CUSTOM_MANY_{n}") for n in range(20)])
    with django_assert_max_num_queries(2):
        assert len(names(api.get("/traits?associated=true", mv="1.6"))) == 20
