"""Flavors in the Django admin: listed, added and deleted through the
services with the console's form (same refusals), never edited in place."""
import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from planning import flavor_services
from planning.models import Flavor
from tests import factories as f

pytestmark = pytest.mark.django_db

URL = "/admin/planning/flavor/"


@pytest.fixture
def su():
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", password="pw"))
    return client


@pytest.fixture
def calls(monkeypatch):
    seen = []
    for name in ("flavor_create", "flavor_delete"):
        real = getattr(flavor_services, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            seen.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(flavor_services, name, spy)
    return seen


def test_listed_and_searchable(su):
    f.FlavorFactory(name="m1.large", resources="VCPU:4,MEMORY_MB:8192")
    f.FlavorFactory(name="m1.small")
    html = su.get(URL, {"q": "large"}).content.decode()
    assert "m1.large" in html and "VCPU:4,MEMORY_MB:8192" in html and "m1.small" not in html
    assert "Flavors" in su.get("/admin/").content.decode()


def test_add_goes_through_the_service(su, calls):
    resp = su.post(URL + "add/", {"name": "m1", "resources": "resources=VCPU:2,MEMORY_MB:512"})
    assert resp.status_code == 302, resp.content.decode()
    assert calls == ["flavor_create"]
    assert Flavor.objects.get().resources == "VCPU:2,MEMORY_MB:512"


def test_add_refuses_what_the_console_refuses(su, calls):
    html = su.post(URL + "add/", {"name": "m1", "resources": "VCPU:1,CUSTOM_NOPE:1"}) \
        .content.decode()
    assert "no such resource class(es): CUSTOM_NOPE" in html
    html = su.post(URL + "add/", {"name": "m1", "resources": "VCPU:-1"}).content.decode()
    assert "Requested resource VCPU requires amount &gt;= 1. Got: -1." in html
    assert calls == [] and not Flavor.objects.exists()


def test_delete_goes_through_the_service_and_there_is_no_edit(su, calls):
    flavor = f.FlavorFactory(name="m1")
    change = su.get(f"{URL}{flavor.pk}/change/").content.decode()
    assert 'name="resources"' not in change  # view only
    assert su.post(f"{URL}{flavor.pk}/change/", {"name": "m1", "resources": "VCPU:9"}) \
        .status_code == 403
    resp = su.post(f"{URL}{flavor.pk}/delete/", {"post": "yes"})
    assert resp.status_code == 302
    assert calls == ["flavor_delete"] and not Flavor.objects.exists()


def test_bulk_delete_goes_through_the_service(su, calls):
    flavors = [f.FlavorFactory(name=n) for n in ("a", "b")]
    resp = su.post(URL, {"action": "delete_selected", "post": "yes",
                         "_selected_action": [x.pk for x in flavors]})
    assert resp.status_code == 302
    assert calls == ["flavor_delete", "flavor_delete"] and not Flavor.objects.exists()
