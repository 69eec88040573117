"""GET /explain: admin only, Placement's error body, no microversion."""
import json

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(world):
    world.provider("cn1", inventory={"VCPU": {"total": 16, "max_unit": 4}})
    return Client()


def test_admin_gets_the_explanation(client):
    r = client.get("/explain?resources=VCPU:6", HTTP_X_AUTH_TOKEN="admin")
    assert r.status_code == 200
    assert r["Content-Type"] == "application/json"
    assert "openstack-api-version" not in r  # not a Placement API path
    body = json.loads(r.content)
    assert body["candidates"] == 0
    assert body["groups"][0]["steps"][0]["kind"] == "max_unit"
    assert body["groups"][0]["steps"][0]["removed"][0]["name"] == "cn1"


def test_not_for_anonymous_or_non_admins(client):
    assert client.get("/explain?resources=VCPU:1").status_code == 401
    r = client.get("/explain?resources=VCPU:1", HTTP_X_AUTH_TOKEN="alice")
    assert r.status_code == 403
    assert json.loads(r.content)["errors"][0]["status"] == 403


@pytest.mark.parametrize("query", ["", "?resources=VCPU:x", "?resources=NOPE:1", "?bogus=1",
                                   "?resources=VCPU:1&required=%00", "?resources=VC%00PU:1"])
def test_bad_query_is_a_400_in_placements_format(client, query):
    r = client.get(f"/explain{query}", HTTP_X_AUTH_TOKEN="admin")
    assert r.status_code == 400
    error = json.loads(r.content)["errors"][0]
    assert error["status"] == 400 and error["detail"]


def test_only_get(client):
    assert client.post("/explain", HTTP_X_AUTH_TOKEN="admin").status_code == 405
