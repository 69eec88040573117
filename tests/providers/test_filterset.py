"""ResourceProviderFilterSet: the one provider filter of the API list and the console."""
import pytest
from django.contrib.auth import get_user_model
from django.http import QueryDict
from django.test import Client

from placement_core import errors
from placement_core.microversion import Version
from providers.filters import ResourceProviderFilterSet
from providers.models import Aggregate, ProviderAggregate, ProviderTrait, ResourceProvider
from tests.factories import (
    AllocationFactory,
    InventoryFactory,
    ResourceProviderFactory,
    resource_class,
    trait,
)

pytestmark = pytest.mark.django_db

AGG_A = "83a3d69d-8920-48e2-8914-cadfd8fa2f91"
AGG_B = "99652f11-9f77-46b9-80b7-4b1989be9f8c"


def _aggregate(provider, agg_uuid):
    aggregate, _ = Aggregate.objects.get_or_create(uuid=agg_uuid)
    ProviderAggregate.objects.create(resource_provider=provider, aggregate=aggregate)


@pytest.fixture
def world():
    """a: AGG_A, AVX, 8 VCPU; b: AGG_A+AGG_B, SSE, 2 VCPU (1 used); c: child of a, nothing."""
    a = ResourceProviderFactory(name="alpha")
    b = ResourceProviderFactory(name="beta")
    c = ResourceProviderFactory(name="gamma", parent=a)
    _aggregate(a, AGG_A)
    _aggregate(b, AGG_A)
    _aggregate(b, AGG_B)
    ProviderTrait.objects.create(resource_provider=a, trait=trait("HW_CPU_X86_AVX"))
    ProviderTrait.objects.create(resource_provider=b, trait=trait("HW_CPU_X86_SSE"))
    InventoryFactory(resource_provider=a, resource_class=resource_class("VCPU"), total=8)
    InventoryFactory(resource_provider=b, resource_class=resource_class("VCPU"), total=2)
    AllocationFactory(resource_provider=b, resource_class=resource_class("VCPU"), used=1)
    return {"a": a, "b": b, "c": c}


def _names(query, mv="1.39", **kwargs):
    fs = ResourceProviderFilterSet(QueryDict(query), microversion=Version(*map(int, mv.split("."))),
                                   **kwargs)
    return sorted(fs.qs.values_list("name", flat=True))


def _error(query, mv="1.39"):
    fs = ResourceProviderFilterSet(QueryDict(query), microversion=Version(*map(int, mv.split("."))))
    with pytest.raises(errors.PlacementError) as info:
        fs.qs  # noqa: B018
    return info.value


def test_declares_the_api_and_console_filters():
    assert set(ResourceProviderFilterSet.base_filters) >= {
        "name", "uuid", "member_of", "in_tree", "required", "resources", "q", "aggregate",
        "trait",
    }


def test_unbound_returns_everything(world):
    assert sorted(ResourceProviderFilterSet().qs.values_list("name", flat=True)) == [
        "alpha", "beta", "gamma"]


def test_each_api_filter(world):
    assert _names("name=beta") == ["beta"]
    assert _names(f"uuid={world['a'].uuid}") == ["alpha"]
    assert _names(f"uuid={world['a'].uuid.replace('-', '').upper()}") == ["alpha"]
    assert _names(f"in_tree={world['c'].uuid}") == ["alpha", "gamma"]
    assert _names(f"member_of={AGG_A}") == ["alpha", "beta"]
    assert _names(f"member_of=in:{AGG_B},{AGG_A}") == ["alpha", "beta"]
    assert _names(f"member_of={AGG_A}&member_of={AGG_B}") == ["beta"]
    assert _names(f"member_of=!{AGG_B}") == ["alpha", "gamma"]
    assert _names("required=HW_CPU_X86_AVX") == ["alpha"]
    assert _names("required=!HW_CPU_X86_AVX") == ["beta", "gamma"]
    assert _names("required=in:HW_CPU_X86_AVX,HW_CPU_X86_SSE") == ["alpha", "beta"]
    assert _names("resources=VCPU:2") == ["alpha"]  # beta has 1 of 2 free
    assert _names("resources=VCPU:1") == ["alpha", "beta"]


def test_empty_string_is_a_value_in_strict_mode(world):
    assert _names("name=") == []
    assert "empty string" in _error("resources=").detail


def test_parsing_follows_the_microversion_passed_in(world):
    assert "Multiple member_of parameters are not supported" in _error(
        f"member_of={AGG_A}&member_of={AGG_B}", mv="1.23").detail
    assert _names(f"member_of={AGG_A}&member_of={AGG_B}", mv="1.24") == ["beta"]
    assert "Forbidden member_of parameters are not supported" in _error(
        f"member_of=!{AGG_A}", mv="1.31").detail
    assert "only supported since microversion 1.39" in _error(
        "required=in:HW_CPU_X86_AVX", mv="1.38").detail
    # Before 1.22 a "!" trait is a malformed value, not a forbidden one.
    assert "HW_CPU_X86_VMX,CUSTOM_MAGIC" in _error("required=!HW_CPU_X86_AVX", mv="1.21").detail
    # Before 1.39 only the last of repeated required keys counts.
    assert _names("required=HW_CPU_X86_AVX&required=HW_CPU_X86_SSE", mv="1.38") == ["beta"]
    assert _names("required=HW_CPU_X86_AVX&required=HW_CPU_X86_SSE", mv="1.39") == []


def test_errors_come_in_the_api_order(world):
    # Parse errors first: member_of, then resources, then required.
    assert "member_of" in _error("member_of=nope&resources=VCPU").detail
    assert "Badly formed resources" in _error("resources=VCPU&required=,").detail
    # Then look-ups, in filter order: traits before resource classes.
    error = _error("required=CUSTOM_NOPE&resources=CUSTOM_NONE:1")
    assert isinstance(error, errors.BadRequest)
    assert error.detail == "No such trait(s): CUSTOM_NOPE."
    assert "No such resource class CUSTOM_NONE" in _error("resources=CUSTOM_NONE:1").detail


def test_lenient_mode_collects_problems_and_ignores_blanks(world):
    fs = ResourceProviderFilterSet(QueryDict("q=&aggregate=&trait=&resources="), lenient=True)
    assert fs.qs.count() == 3 and fs.problems == []
    fs = ResourceProviderFilterSet(QueryDict("resources=VCPU&member_of=x"), lenient=True)
    assert fs.qs.count() == 0
    assert len(fs.problems) == 2 and "Badly formed resources" in fs.problems[1]
    fs = ResourceProviderFilterSet(QueryDict("trait=CUSTOM_NOPE"), lenient=True)
    assert fs.qs.count() == 0 and fs.problems == ["No such trait(s): CUSTOM_NOPE."]


def test_console_filters(world):
    assert _names("q=ET", lenient=True) == ["beta"]
    assert _names(f"q={world['c'].uuid[:8]}", lenient=True) == ["gamma"]
    assert _names(f"aggregate={AGG_B}", lenient=True) == ["beta"]
    assert _names(f"aggregate= {AGG_B.upper()} ", lenient=True) == ["beta"]
    assert _names("trait=HW_CPU_X86_SSE", lenient=True) == ["beta"]
    assert _names("trait=!HW_CPU_X86_SSE", lenient=True) == ["alpha", "gamma"]
    assert _names("roots_only=true", lenient=True) == ["alpha", "beta"]


def test_every_filter_costs_a_bounded_number_of_queries(world, django_assert_max_num_queries):
    query = (f"name=alpha&uuid={world['a'].uuid}&in_tree={world['a'].uuid}&member_of={AGG_A}"
             "&required=HW_CPU_X86_AVX&resources=VCPU:1")
    with django_assert_max_num_queries(3):  # trait ids, class ids, the list
        assert _names(query) == ["alpha"]


def test_api_and_console_answer_the_same_query_alike(world, api):
    query = f"member_of={AGG_A}&required=!HW_CPU_X86_SSE&resources=VCPU:1"
    api_names = sorted(
        rp["name"] for rp in api.get(f"/resource_providers?{query}", mv="1.39").json()[
            "resource_providers"]
    )
    user = get_user_model().objects.create_user("op", password="pw", is_staff=True)
    client = Client()
    client.force_login(user)
    html = client.get(f"/console/providers/?{query}").content.decode()
    assert api_names == ["alpha"]
    # With amounts asked, the console counts hosts (trees, as the candidates
    # engine does); every provider here is a tree of its own.
    assert "1 host<" in html and ">alpha</a>" in html and ">beta</a>" not in html
    assert ResourceProvider.objects.count() == 3
