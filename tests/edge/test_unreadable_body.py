"""A client that goes away in the middle of its body, and Django's other
refusals while it parses a request: each is a 4xx in Placement's format
that changes nothing, never a 500."""
import pytest
from django.core.exceptions import BadRequest
from django.http import HttpRequest
from django.http.multipartparser import MultiPartParserError
from django.http.request import UnreadablePostError

from providers.models import ResourceProvider
from tests.factories import ResourceProviderFactory

pytestmark = pytest.mark.django_db

BODY = b'{"name": "half-sent", "uuid": "0d0b4a64-5d6c-4a3d-9a6d-7f4d2e1c9b10"}'


class _DisconnectingInput:
    """A wsgi.input whose client hangs up after ``sent`` bytes of its body:
    a read that waits for more than that fails with an OSError, as a WSGI
    server's socket read does when the peer resets the connection."""

    def __init__(self, body, sent):
        self._rest = body[:sent]

    def read(self, size=-1):
        if size is None or size < 0 or size > len(self._rest):
            raise OSError("Connection reset by peer")
        chunk, self._rest = self._rest[:size], self._rest[size:]
        return chunk

    def readline(self, size=-1):
        return self.read(size)


def _send(api, method, path, mv="1.39"):
    return api._client.generic(
        method, path, data=BODY, content_type="application/json",
        HTTP_X_AUTH_TOKEN="admin", HTTP_OPENSTACK_API_VERSION=f"placement {mv}",
        **{"wsgi.input": _DisconnectingInput(BODY, sent=10)})


def _error(response):
    assert response["content-type"] == "application/json"
    return response.json()["errors"][0]


def test_a_body_cut_off_mid_way_is_a_400(api):
    response = _send(api, "POST", "/resource_providers")
    assert response.status_code == 400, response.content
    error = _error(response)
    assert error["title"] == "Bad Request"
    assert "could not be read" in error["detail"]
    assert error["code"] == "placement.undefined_code"
    assert not ResourceProvider.objects.exists()


def test_a_cut_off_body_changes_nothing_on_an_update(api):
    rp = ResourceProviderFactory(name="kept")
    response = _send(api, "PUT", f"/resource_providers/{rp.uuid}")
    assert response.status_code == 400, response.content
    rp.refresh_from_db()
    assert rp.name == "kept"


@pytest.mark.parametrize("exc", [
    UnreadablePostError("connection reset"),
    BadRequest("bad request line"),
    MultiPartParserError("Invalid boundary in multipart: None"),
])
def test_every_request_parsing_error_is_a_400(api, monkeypatch, exc):
    def unreadable(self):
        raise exc

    monkeypatch.setattr(HttpRequest, "body", property(unreadable))
    response = api.post("/resource_providers", json={"name": "x"}, mv="1.20")
    assert response.status_code == 400, response.content
    assert _error(response)["status"] == 400
    assert not ResourceProvider.objects.exists()
