"""GET /resource_providers names each provider's parent and root uuid.

The list is read without joining the providers table to itself when every
parent and root is in the list (the whole cloud, a tree): one statement.
A filtered list whose parents or roots lie outside it is read again with
the joins, and names them all the same.
"""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from providers.models import ResourceProvider
from tests.factories import InventoryFactory, ResourceProviderFactory, resource_class

pytestmark = pytest.mark.django_db


@pytest.fixture
def tree():
    """root -> numa -> pf, and a second lone root."""
    root = ResourceProviderFactory(name="cn1")
    numa = ResourceProviderFactory(name="cn1-numa0", parent=root)
    pf = ResourceProviderFactory(name="cn1-numa0-pf", parent=numa)
    InventoryFactory(resource_provider=pf, resource_class=resource_class("SRIOV_NET_VF"))
    lone = ResourceProviderFactory(name="cn2")
    return root, numa, pf, lone


def _listed(api, query=""):
    with CaptureQueriesContext(connection) as ctx:
        response = api.get("/resource_providers" + query, mv="1.39")
    assert response.status_code == 200, response.content
    got = {p["name"]: (p["parent_provider_uuid"], p["root_provider_uuid"])
           for p in response.json()["resource_providers"]}
    return got, len(ctx.captured_queries)


def test_whole_list_names_parents_and_roots_in_one_statement(api, tree):
    root, numa, pf, lone = tree
    got, statements = _listed(api)
    assert got == {
        "cn1": (None, root.uuid),
        "cn1-numa0": (root.uuid, root.uuid),
        "cn1-numa0-pf": (numa.uuid, root.uuid),
        "cn2": (None, lone.uuid),
    }
    assert statements == 1


def test_filtered_list_names_parents_and_roots_outside_it(api, tree):
    root, numa, pf, lone = tree
    got, statements = _listed(api, "?resources=SRIOV_NET_VF:1")
    assert got == {"cn1-numa0-pf": (numa.uuid, root.uuid)}
    # The class lookup, the join-free read, then the one with the joins.
    assert statements == 3


def test_in_tree_list_needs_no_second_read(api, tree):
    root, numa, pf, lone = tree
    got, statements = _listed(api, f"?in_tree={pf.uuid}")
    assert set(got) == {"cn1", "cn1-numa0", "cn1-numa0-pf"}
    assert got["cn1-numa0-pf"] == (numa.uuid, root.uuid)
    assert statements == 1


def test_whole_list_shows_a_missing_root_as_null_in_one_statement(api, tree):
    """A row without a root id (as an old database may hold) is shown with a
    null root, and the whole list still needs no second read."""
    root, numa, pf, lone = tree
    ResourceProvider.objects.filter(pk=lone.pk).update(root=None)
    got, statements = _listed(api)
    assert got["cn2"] == (None, None)
    assert got["cn1-numa0-pf"] == (numa.uuid, root.uuid)
    assert statements == 1


def test_filtered_list_shows_a_missing_root_as_null_in_one_statement(api, tree):
    root, numa, pf, lone = tree
    ResourceProvider.objects.filter(pk=lone.pk).update(root=None)
    got, statements = _listed(api, "?name=cn2")
    assert got == {"cn2": (None, None)}
    assert statements == 1
