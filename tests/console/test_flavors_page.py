"""The console's Flavors page: staff add and delete the flavors headroom
counts (POST with CSRF, the shared form's errors shown), see the setting's
beside them, and the overview counts both."""
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from placement_core.querystring import Flavor as Spec
from planning.models import Flavor
from tests import factories as f
from tests.support.world import World

pytestmark = pytest.mark.django_db


def _client(is_staff=True, csrf=True):
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(get_user_model().objects.create_user(
        "op" if is_staff else "someone", password="pw", is_staff=is_staff))
    return client


@pytest.fixture
def staff():
    return _client()


def _token(client, url="/console/flavors/"):
    html = client.get(url).content.decode()
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)


def _add(client, name, resources):
    return client.post("/console/flavors/", {
        "name": name, "resources": resources, "csrfmiddlewaretoken": _token(client)})


def test_add_then_delete(staff):
    resp = _add(staff, "m1.large", "VCPU:4,MEMORY_MB:8192,DISK_GB:80")
    assert resp.status_code == 302 and resp["Location"] == "/console/flavors/"
    flavor = Flavor.objects.get()
    assert flavor.resources == "VCPU:4,MEMORY_MB:8192,DISK_GB:80"
    html = staff.get("/console/flavors/").content.decode()
    assert "m1.large" in html and f'action="/console/flavors/{flavor.pk}/delete/"' in html
    assert staff.get(f"/console/flavors/{flavor.pk}/delete/").status_code == 405
    resp = staff.post(f"/console/flavors/{flavor.pk}/delete/",
                      {"csrfmiddlewaretoken": _token(staff)})
    assert resp.status_code == 302 and not Flavor.objects.exists()


@pytest.mark.parametrize("name,resources,field,words", [
    ("m1", "VCPU:4,CUSTOM_NOPE:1", "resources", "no such resource class(es): CUSTOM_NOPE"),
    ("m1", "VCPU:0", "resources", "Requested resource VCPU requires amount &gt;= 1. Got: 0."),
    ("m1", "VCPU:four", "resources", "expected positive integer amount. Got: four."),
    ("a;b", "VCPU:1", "name", "&#x27;;&#x27; and &#x27;=&#x27; are not allowed"),
])
def test_refusals_are_form_errors_and_store_nothing(staff, name, resources, field, words):
    resp = _add(staff, name, resources)
    assert resp.status_code == 200
    html = resp.content.decode()
    error = html.split(f'id="error-{field}">', 1)[1].split("</p>", 1)[0]
    assert words in error
    assert f'value="{resources}"' in html  # the form keeps what was typed
    assert not Flavor.objects.exists()


def test_a_taken_name_and_a_settings_name_are_form_errors(staff, settings):
    settings.PLACEMENT_FLAVORS = [Spec("m1.small", {"VCPU": 1})]
    f.FlavorFactory(name="m1.large")
    assert 'id="error-name"' in _add(staff, "m1.large", "VCPU:2").content.decode()
    html = _add(staff, "m1.small", "VCPU:2").content.decode()
    assert "is defined in PLACEMENT_FLAVORS" in html
    assert Flavor.objects.count() == 1


def test_without_the_csrf_token_nothing_is_written(staff):
    f.FlavorFactory(name="keep")
    resp = staff.post("/console/flavors/", {"name": "m1", "resources": "VCPU:1"})
    assert resp.status_code == 403
    resp = staff.post(f"/console/flavors/{Flavor.objects.get().pk}/delete/")
    assert resp.status_code == 403
    assert list(Flavor.objects.values_list("name", flat=True)) == ["keep"]


@pytest.mark.parametrize("client", [Client(), "not staff"])
def test_staff_only(client):
    if client == "not staff":  # CSRF not enforced: the staff check is what refuses
        client = _client(is_staff=False, csrf=False)
    flavor = f.FlavorFactory(name="keep")
    for resp in (client.get("/console/flavors/"),
                 client.post("/console/flavors/", {"name": "m1", "resources": "VCPU:1"}),
                 client.post(f"/console/flavors/{flavor.pk}/delete/")):
        assert resp.status_code == 302 and resp["Location"].startswith("/console/login/")
    assert list(Flavor.objects.values_list("name", flat=True)) == ["keep"]


def test_the_setting_wins_a_name_and_the_page_says_so(staff, settings):
    settings.PLACEMENT_FLAVORS = [Spec("both", {"VCPU": 2})]
    f.FlavorFactory(name="both", resources="VCPU:16")
    f.FlavorFactory(name="mine", resources="VCPU:8")
    World().provider("cn", inventory={"VCPU": 16})
    html = staff.get("/console/flavors/").content.decode()
    assert html.count("overridden by PLACEMENT_FLAVORS") == 1
    table = staff.get("/console/").content.decode().split('id="headroom"')[1].split("</table>")[0]
    rows = {r.split("</td>")[0].split("<td>")[1].split(" ")[0]: r
            for r in table.split("<tr>")[2:]}
    assert set(rows) == {"both", "mine"}
    assert '<td class="num">8</td>' in rows["both"]  # the setting's VCPU:2, not VCPU:16
    assert '<td class="num">2</td>' in rows["mine"] and ">console</span>" in rows["mine"]


def test_flavors_csv(staff, settings):
    settings.PLACEMENT_FLAVORS = [Spec("both", {"VCPU": 2})]
    f.FlavorFactory(name="both", resources="VCPU:16")
    resp = staff.get("/console/flavors/", {"format": "csv"})
    assert b"".join(resp.streaming_content).decode().splitlines() == [
        "name,resources,defined_in,counted", "both,VCPU:2,settings,yes",
        "both,VCPU:16,console,no"]
