"""GET /resource_providers lists providers in id order (creation order),
whatever order the database keeps its rows in: the list is sorted in
Python rather than read through the primary-key index (see
providers.selectors.provider_list_rows)."""
import pytest

from providers.models import ResourceProvider
from tests.factories import ResourceProviderFactory

pytestmark = pytest.mark.django_db


def _names(api, query=""):
    response = api.get("/resource_providers" + query, mv="1.39")
    assert response.status_code == 200, response.content
    return [p["name"] for p in response.json()["resource_providers"]]


def test_list_is_in_id_order_after_rows_move(api):
    made = [ResourceProviderFactory(name=f"rp-{i}") for i in range(5)]
    # An update writes a new row version (at the end of the table on
    # PostgreSQL): the table's own order is no longer the ids' order.
    for provider in made[:3]:
        ResourceProvider.objects.filter(pk=provider.pk).update(name=provider.name + "-renamed")
    expected = ["rp-0-renamed", "rp-1-renamed", "rp-2-renamed", "rp-3", "rp-4"]
    assert _names(api) == expected
    # A filtered list (a second read with joins when parents lie outside
    # it) keeps the same order.
    child = ResourceProviderFactory(name="child", parent=made[4])
    ResourceProvider.objects.filter(pk=made[1].pk).update(name="rp-1-again")
    assert _names(api, f"?in_tree={child.uuid}") == ["rp-4", "child"]
    assert _names(api)[:2] == ["rp-0-renamed", "rp-1-again"]
