"""A chunked request body (Transfer-Encoding: chunked, no Content-Length):
Django reads a body by its Content-Length, so such a body used to be read
as empty and a valid one answered "Malformed JSON". It is refused with 411
Length Required, as a reverse proxy would, and nothing is written
(issue 28, item 11). tests/deploy/test_worker_setup.py sends one to a real
gunicorn."""
import pytest
from django.test import Client

from providers.models import ResourceProvider

pytestmark = pytest.mark.django_db

BODY = b'{"name": "chunked"}'


def _chunked(body):
    return b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)


@pytest.mark.parametrize("method,path", [("POST", "/resource_providers"),
                                         ("PUT", "/resource_classes/CUSTOM_X"),
                                         ("GET", "/resource_providers")])
def test_a_chunked_api_request_is_a_411_in_placement_format(api, method, path):
    response = api._client.generic(
        method, path, data=b"", content_type="application/json",
        HTTP_X_AUTH_TOKEN="admin", HTTP_OPENSTACK_API_VERSION="placement 1.39",
        HTTP_TRANSFER_ENCODING="chunked", **{"wsgi.input": _FakeInput(_chunked(BODY))})
    assert response.status_code == 411
    error = response.json()["errors"][0]
    assert error["status"] == 411 and error["title"] == "Length Required"
    assert error["detail"].startswith("The request needs a Content-Length header.")
    assert "send the body with a Content-Length header" in error["detail"]
    assert not ResourceProvider.objects.exists()


def test_a_chunked_console_post_is_a_411_too():
    response = Client().generic("POST", "/console/login/", data=b"",
                                content_type="application/x-www-form-urlencoded",
                                HTTP_TRANSFER_ENCODING="chunked")
    assert response.status_code == 411
    assert b"Content-Length" in response.content


def test_a_body_with_its_length_is_read_as_before(api):
    response = api.post("/resource_providers", json={"name": "sized"}, mv="1.39")
    assert response.status_code == 200


class _FakeInput:
    def __init__(self, data):
        self._data = data

    def read(self, size=-1):
        chunk = self._data if size is None or size < 0 else self._data[:size]
        self._data = self._data[len(chunk):]
        return chunk

    def readline(self, size=-1):
        return self.read(size)
