"""GET /planning/drain: policy, Placement's error body, the engine's answer."""
import json

import pytest
from django.test import Client

from allocations.models import Allocation

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(world):
    a = world.provider("a", inventory={"VCPU": 8})
    world.provider("b", inventory={"VCPU": 8})
    world.consumer({a: {"VCPU": 4}})
    return Client()


def test_admin_gets_the_verdict(client):
    r = client.get("/planning/drain?provider=a", HTTP_X_AUTH_TOKEN="admin")
    assert r.status_code == 200 and r["Content-Type"] == "application/json"
    assert r["openstack-request-id"].startswith("req-")
    body = json.loads(r.content)
    assert body["fits"] is True and body["consumers"] == 1
    assert body["placed"][0]["to"][0]["name"] == "b"
    assert body["placed"][0]["to"][0]["resources"] == {"VCPU": 4}
    assert body["fullest_after"][0] == {
        "uuid": body["fullest_after"][0]["uuid"], "name": "b", "resource_class": "VCPU",
        "used_before": 0, "used": 4, "capacity": 8, "percent": 50.0}


def test_a_consumer_that_does_not_fit(client, world):
    a = world.provider("a2", inventory={"VCPU": 16})
    world.consumer({a: {"VCPU": 9}})
    r = client.get("/planning/drain?provider=a2&provider=a", HTTP_X_AUTH_TOKEN="admin")
    body = json.loads(r.content)
    assert r.status_code == 200 and body["fits"] is False
    assert [m["reason"]["kind"] for m in body["not_placed"]] == ["max_unit"]


def test_policy(client):
    assert client.get("/planning/drain?provider=a").status_code == 401
    r = client.get("/planning/drain?provider=a", HTTP_X_AUTH_TOKEN="alice")
    assert r.status_code == 403
    assert "placement:planning:drain" in json.loads(r.content)["errors"][0]["detail"]
    # The service role may schedule, but not read the plan by default.
    r = client.get("/planning/drain?provider=a", HTTP_X_AUTH_TOKEN="nova", HTTP_X_ROLES="service")
    assert r.status_code == 403


@pytest.mark.parametrize("query", [
    "", "?provider=nope", "?bogus=1", "?aggregate=x", "?provider=a&fullest=-1",
    "?provider=a&fullest=abc", "?provider=a&required=CUSTOM_NOPE", "?aggregate=a&aggregate=b",
    "?provider=a%00", "?provider=a&fullest=%C2%B2",
])
def test_bad_query_is_a_400_and_changes_nothing(client, query):
    before = list(Allocation.objects.values_list("id", "resource_provider_id", "used"))
    r = client.get(f"/planning/drain{query}", HTTP_X_AUTH_TOKEN="admin")
    assert r.status_code == 400
    error = json.loads(r.content)["errors"][0]
    assert error["status"] == 400 and error["detail"] and error["request_id"].startswith("req-")
    assert list(Allocation.objects.values_list("id", "resource_provider_id", "used")) == before


def test_only_get(client):
    r = client.post("/planning/drain?provider=a", HTTP_X_AUTH_TOKEN="admin")
    assert r.status_code == 405
