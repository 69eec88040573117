"""Bodies built to hurt: nested hundreds deep, NUL characters and unpaired
surrogates in strings, huge values in messages, more than the upload limit.
Each gets a 4xx in Placement's format and changes nothing."""
import json

import pytest
from django.test import override_settings

from allocations.models import Consumer, Project, User
from providers.models import ResourceProvider
from tests.factories import InventoryFactory, ResourceProviderFactory

pytestmark = pytest.mark.django_db

CONSUMER = "0d0b4a64-5d6c-4a3d-9a6d-7f4d2e1c9b10"


def _detail(response):
    return response.json()["errors"][0]["detail"]


def _deep(levels):
    return "[" * levels + "]" * levels


@pytest.mark.parametrize("levels", [33, 500, 100_000])
def test_deep_nesting_is_refused_briefly(api, levels):
    rp = ResourceProviderFactory()
    response = api.put(f"/resource_providers/{rp.uuid}/traits", mv="1.6",
                       data=_deep(levels).encode(), content_type="application/json")
    assert response.status_code == 400
    assert "nested more than 32 levels deep" in _detail(response)
    assert len(response.content) < 1000


@pytest.mark.parametrize("path,method", [
    ("/resource_providers", "POST"),
    ("/allocations", "POST"),
    ("/resource_classes", "POST"),
])
def test_every_json_endpoint_refuses_deep_bodies(api, path, method):
    body = '{"name": ' + _deep(300) + "}"
    response = api.request(method, path, mv="1.39", data=body.encode(),
                           content_type="application/json")
    assert response.status_code == 400
    assert "nested more than" in _detail(response)


def test_shallow_bodies_still_work(api):
    response = api.post("/resource_providers", json={"name": "ok"}, mv="1.20")
    assert response.status_code == 200


@pytest.mark.parametrize("name", ["a\x00b", "a\udc80b"])
def test_unstorable_strings_in_a_name(api, name):
    raw = json.dumps({"name": name}).encode()  # "\u0000" / "\udc80" escapes
    response = api.post("/resource_providers", data=raw, content_type="application/json",
                        mv="1.20")
    assert response.status_code == 400
    assert "Malformed JSON: a string holds" in _detail(response)
    assert not ResourceProvider.objects.exists()


@pytest.mark.parametrize("field", ["project_id", "user_id"])
def test_unpaired_surrogate_in_project_or_user(api, field):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=8)
    body = {"allocations": {rp.uuid: {"resources": {"VCPU": 1}}},
            "project_id": "p", "user_id": "u", "consumer_generation": None}
    body[field] = "x\udc80y"
    response = api.put(f"/allocations/{CONSUMER}", mv="1.28",
                       data=json.dumps(body).encode(), content_type="application/json")
    assert response.status_code == 400
    assert not Consumer.objects.exists()
    assert not Project.objects.exists() and not User.objects.exists()


def test_a_huge_value_is_not_echoed_whole(api):
    response = api.post("/resource_providers", json={"name": "x" * 300_000}, mv="1.20")
    assert response.status_code == 400
    assert "characters left out" in _detail(response)
    assert len(response.content) < 10_000


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1024)
def test_a_body_over_the_upload_limit_is_413(api):
    response = api.post("/resource_providers", json={"name": "x" * 2000}, mv="1.20")
    assert response.status_code == 413
    assert response.json()["errors"][0]["title"] == "Request Entity Too Large"
    assert not ResourceProvider.objects.exists()
