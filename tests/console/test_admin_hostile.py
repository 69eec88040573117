"""The admin given what no row can hold or the database cannot be asked
(found by tests/console/test_hostile_everywhere.py): a NUL character
(PostgreSQL), a search text of 100 KB (SQLite's LIKE), a selected id or
autocomplete choice that is no id (Django's own views raised). A 400 page
saying what was refused, nothing changed; never a 500."""
import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from planning.models import Flavor
from providers.models import ResourceProvider
from tests import factories as f

pytestmark = pytest.mark.django_db


@pytest.fixture
def su():
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", password="pw"))
    return client


def _refused(response, words):
    assert response.status_code == 400, response.status_code
    html = response.content.decode()
    assert words in html, html
    assert 'href="/admin/"' in html  # the admin's own page, its way back kept


@pytest.mark.parametrize("url", [
    "/admin/operations/allocationchange/?source=%00",
    "/admin/operations/allocationchange/?source__exact=a%00",
    "/admin/operations/joblock/%00/change/",
    "/admin/autocomplete/?app_label=providers&model_name=resourceprovider"
    "&field_name=parent&term=%00",
    "/admin/providers/resourceprovider/?q=%00",
])
def test_a_nul_is_refused(su, url):
    _refused(su.get(url), "NUL character")


@pytest.mark.parametrize("url", [
    "/admin/providers/resourceprovider/?q={}",
    "/admin/auth/user/?q={}",
    "/admin/autocomplete/?app_label=providers&model_name=resourceprovider"
    "&field_name=parent&term={}",
])
def test_a_search_of_100_kb_is_refused(su, url):
    _refused(su.get(url.format("x" * 100_000)), "at most 1000 characters")
    assert su.get(url.format("x" * 1000)).status_code == 200


@pytest.mark.parametrize("model", ["planning/flavor", "auth/user"])
@pytest.mark.parametrize("selected", ["x", "", "1e309", "9" * 5000, "\u00b2", "1" + "0" * 30])
def test_a_selected_row_that_is_no_id_is_refused(su, model, selected):
    f.FlavorFactory()
    users = get_user_model().objects.count()
    response = su.post(f"/admin/{model}/", {"action": "delete_selected", "index": "0",
                                            "_selected_action": selected, "post": "yes"})
    _refused(response, "is not an id")
    assert Flavor.objects.count() == 1 and get_user_model().objects.count() == users


@pytest.mark.parametrize("parent", ["x!", "1e309", "9" * 5000, "\u00b2", "1" + "0" * 30])
def test_a_parent_that_is_no_id_is_refused(su, parent):
    form = {"name": "probe-x", "uuid": "", "parent": parent,
            **{f"{prefix}-{count}": "0" for prefix in (
                "inventories", "providertrait_set", "provideraggregate_set")
               for count in ("TOTAL_FORMS", "INITIAL_FORMS")}}
    response = su.post("/admin/providers/resourceprovider/add/", form)
    _refused(response, "is not an id")
    assert not ResourceProvider.objects.exists()


def test_an_unknown_parent_id_is_still_the_form_s_error(su):
    form = {"name": "probe-x", "uuid": "", "parent": "12345",
            **{f"{prefix}-{count}": "0" for prefix in (
                "inventories", "providertrait_set", "provideraggregate_set")
               for count in ("TOTAL_FORMS", "INITIAL_FORMS")}}
    response = su.post("/admin/providers/resourceprovider/add/", form)
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert not ResourceProvider.objects.exists()
