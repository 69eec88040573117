"""Every API request leaves one log line with status, length, microversion
and request ids; non-API pages leave none; nothing in a URL forges a line."""
import logging

import pytest

from tests.support.api import PlacementClient

GLOBAL_ID = "req-12345678-1234-1234-1234-123456789abc"


@pytest.fixture
def lines(caplog):
    caplog.set_level(logging.INFO, logger="placement.requestlog")
    return lambda: [r for r in caplog.records if r.name == "placement.requestlog"]


@pytest.mark.django_db
def test_one_line_per_api_request(lines):
    response = PlacementClient(mv="1.20").get("/resource_providers?name=a%20b")
    assert response.status_code == 200
    [record] = lines()
    text = record.getMessage()
    assert record.levelno == logging.INFO
    assert '"GET /resource_providers?name=a%20b" status: 200' in text
    assert f"len: {len(response.content)}" in text
    assert "microversion: 1.20" in text
    assert response["x-openstack-request-id"] in text


@pytest.mark.django_db
def test_valid_global_request_id_is_logged_and_kept(lines, client):
    response = client.get("/", HTTP_X_OPENSTACK_REQUEST_ID=GLOBAL_ID)
    assert response.status_code == 200
    [record] = lines()
    assert GLOBAL_ID in record.getMessage()
    assert "microversion: 1.0" in record.getMessage()


@pytest.mark.django_db
def test_global_id_is_on_the_request_context(rf):
    from placement_core.edge import PlacementEdgeMiddleware

    seen = {}

    def view(request):
        seen["context"] = request.placement_context
        from django.http import HttpResponse
        return HttpResponse(b"")

    request = rf.get("/resource_providers", HTTP_X_AUTH_TOKEN="admin",
                     HTTP_X_OPENSTACK_REQUEST_ID=GLOBAL_ID)
    PlacementEdgeMiddleware(view)(request)
    assert seen["context"].global_request_id == GLOBAL_ID


@pytest.mark.django_db
def test_invalid_global_id_is_ignored(lines, client):
    client.get("/", HTTP_X_OPENSTACK_REQUEST_ID="req-not-a-uuid\nforged")
    [record] = lines()
    assert "not-a-uuid" not in record.getMessage()


@pytest.mark.django_db
def test_errors_are_logged_with_their_status(lines):
    response = PlacementClient().get("/resource_providers/nope", mv="9.99")
    assert response.status_code == 406
    [record] = lines()
    assert "status: 406" in record.getMessage()


@pytest.mark.django_db
def test_encoded_newline_cannot_forge_a_line(lines):
    PlacementClient().get("/resource_providers/x%0A127.0.0.1%20%22GET%20/%22%20status:%20200")
    [record] = lines()
    assert "\n" not in record.getMessage()
    assert "\\x0a" in record.getMessage()


def test_no_line_for_static_files(lines, client):
    client.get("/static/nothing.css")
    client.get("/console/")
    assert lines() == []
