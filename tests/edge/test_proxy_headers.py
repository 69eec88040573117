"""Behind a proxy ([oslo_middleware] enable_proxy_headers_parsing): links,
Location headers and console redirects carry the scheme, host and path
prefix the client used, through the same WSGI wrapper wsgi.py applies."""
import io
import json
import logging
import uuid

import pytest
from django.core.handlers.wsgi import WSGIHandler

from placement_site import proxy


def call(headers=None, method="GET", path="/", body=b"", token="admin", mv="1.39"):
    """One request through proxy.wrap(Django's WSGI handler): (status, headers, body)."""
    environ = {
        "REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "SCRIPT_NAME": "",
        "SERVER_NAME": "backend.internal", "SERVER_PORT": "8778", "REMOTE_ADDR": "10.0.0.2",
        "SERVER_PROTOCOL": "HTTP/1.1", "HTTP_HOST": "backend.internal:8778",
        "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body), "wsgi.errors": io.StringIO(),
        "wsgi.version": (1, 0), "wsgi.multithread": False, "wsgi.multiprocess": False,
        "wsgi.run_once": False, "CONTENT_LENGTH": str(len(body)),
    }
    if body:
        environ["CONTENT_TYPE"] = "application/json"
    if token:
        environ["HTTP_X_AUTH_TOKEN"] = token
    if mv:
        environ["HTTP_OPENSTACK_API_VERSION"] = f"placement {mv}"
    for name, value in (headers or {}).items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    seen = {}

    def start_response(status, response_headers, exc_info=None):
        seen["status"] = int(status.split()[0])
        seen["headers"] = {k.lower(): v for k, v in response_headers}

    app = proxy.wrap(WSGIHandler())
    chunks = app(environ, start_response)
    content = b"".join(chunks)
    if hasattr(chunks, "close"):
        chunks.close()
    return seen["status"], seen["headers"], content


BEHIND = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "cloud.example.com",
          "X-Forwarded-Prefix": "/placement"}


@pytest.fixture
def proxied(settings):
    settings.PLACEMENT_ENABLE_PROXY_HEADERS_PARSING = True
    settings.ALLOWED_HOSTS = ["*"]
    return settings


def create_provider(headers, mv="1.39"):
    body = json.dumps({"name": f"rp-{uuid.uuid4()}"}).encode()
    return call(headers, "POST", "/resource_providers", body, mv=mv)


@pytest.mark.django_db(transaction=True)
def test_x_forwarded_headers_shape_location_and_links(proxied):
    status, headers, body = create_provider(BEHIND, mv="1.19")
    assert status == 201
    rp = headers["location"].rsplit("/", 1)[1]
    assert headers["location"] == f"https://cloud.example.com/placement/resource_providers/{rp}"
    status, _, body = call(BEHIND, path=f"/resource_providers/{rp}")
    assert status == 200
    hrefs = [link["href"] for link in json.loads(body)["links"]]
    assert hrefs and all(h.startswith(f"/placement/resource_providers/{rp}") for h in hrefs)
    # Inventory's Location is absolute too.
    inventory = json.dumps({"resource_provider_generation": 0, "resource_class": "VCPU",
                            "total": 8}).encode()
    status, headers, _ = call(BEHIND, "POST", f"/resource_providers/{rp}/inventories",
                              inventory, mv="1.19")
    assert status == 201
    assert headers["location"] == (
        f"https://cloud.example.com/placement/resource_providers/{rp}/inventories/VCPU")


@pytest.mark.django_db(transaction=True)
def test_resource_class_and_trait_locations_carry_the_prefix(proxied):
    status, headers, _ = call(BEHIND, "PUT", "/resource_classes/CUSTOM_PROXIED")
    assert status == 201
    assert headers["location"] == "/placement/resource_classes/CUSTOM_PROXIED"
    status, headers, _ = call(BEHIND, "PUT", "/traits/CUSTOM_PROXIED_TRAIT")
    assert status == 201
    assert headers["location"] == "/placement/traits/CUSTOM_PROXIED_TRAIT"


@pytest.mark.django_db(transaction=True)
def test_rfc7239_forwarded_header(proxied, caplog):
    forwarded = {"Forwarded": 'for="[2001:db8::17]:4711";proto=https;host="api.example.net:8443", '
                              "for=10.1.1.1;proto=http;host=inner",
                 "X-Forwarded-Prefix": "/placement/"}
    with caplog.at_level(logging.INFO, logger="placement.requestlog"):
        status, headers, _ = create_provider(forwarded, mv="1.19")
    assert status == 201
    assert headers["location"].startswith(
        "https://api.example.net:8443/placement/resource_providers/")
    # The address logged is the last element's for=, the one the proxy in
    # front of the service wrote: the elements before it cannot be told
    # apart from what a client sends.
    logged = [r.getMessage() for r in caplog.records if r.name == "placement.requestlog"]
    assert any("10.1.1.1" in line for line in logged)
    assert not any("2001:db8::17" in line for line in logged)


@pytest.mark.django_db(transaction=True)
def test_forwarded_wins_over_x_forwarded(proxied):
    status, headers, _ = create_provider(
        {"Forwarded": "proto=https;host=a.example", "X-Forwarded-Host": "b.example",
         "X-Forwarded-Proto": "http"}, mv="1.19")
    assert status == 201
    assert headers["location"].startswith("https://a.example/resource_providers/")


@pytest.mark.django_db(transaction=True)
def test_console_redirects_carry_the_prefix(proxied):
    status, headers, _ = call(BEHIND, path="/console/", token=None, mv=None)
    assert status == 302
    assert headers["location"] == "/placement/console/login/?next=/placement/console/"
    status, _, body = call(BEHIND, path="/console/login/", token=None, mv=None)
    assert status == 200
    assert b'href="/placement/console/assets/console.css"' in body


@pytest.mark.django_db(transaction=True)
def test_headers_ignored_when_the_option_is_off(settings):
    settings.PLACEMENT_ENABLE_PROXY_HEADERS_PARSING = False
    status, headers, _ = create_provider(BEHIND, mv="1.19")
    assert status == 201
    assert headers["location"].startswith("http://backend.internal:8778/resource_providers/")
    status, headers, _ = call(BEHIND, path="/console/", token=None, mv=None)
    assert headers["location"] == "/console/login/?next=/console/"


@pytest.mark.parametrize("headers", [
    {"X-Forwarded-Proto": "gopher"},
    {"X-Forwarded-Host": "evil.example/path"},
    {"X-Forwarded-Prefix": "no-slash"},
    {"X-Forwarded-Prefix": "//evil.example"},
    {"Forwarded": "proto=javascript;host=\"a b\""},
])
def test_malformed_values_are_ignored(headers):
    environ = {"wsgi.url_scheme": "http", "HTTP_HOST": "backend:1", "SCRIPT_NAME": "",
               "REMOTE_ADDR": "10.0.0.2"}
    environ.update({"HTTP_" + k.upper().replace("-", "_"): v for k, v in headers.items()})
    proxy.apply(environ)
    assert (environ["wsgi.url_scheme"], environ["HTTP_HOST"], environ["SCRIPT_NAME"]) == (
        "http", "backend:1", "")


def test_forwarded_parsing():
    assert proxy.parse_forwarded('For="[2001:db8:cafe::17]:4711";Proto=https, for=192.0.2.43') == [
        {"for": "[2001:db8:cafe::17]:4711", "proto": "https"}, {"for": "192.0.2.43"}]


def test_x_forwarded_for_sets_the_client_address():
    environ = {"HTTP_X_FORWARDED_FOR": "203.0.113.9", "REMOTE_ADDR": "10.0.0.1"}
    proxy.apply(environ)
    assert environ["REMOTE_ADDR"] == "203.0.113.9"


@pytest.mark.parametrize("environ", [
    {"HTTP_X_FORWARDED_FOR": "198.51.100.66, 203.0.113.9"},
    {"HTTP_FORWARDED": "for=198.51.100.66;proto=https, for=203.0.113.9"},
])
def test_an_address_the_client_wrote_itself_is_not_taken(environ):
    # The client sent the first entry; the proxy appended the real address.
    environ["REMOTE_ADDR"] = "10.0.0.1"
    proxy.apply(environ)
    assert environ["REMOTE_ADDR"] == "203.0.113.9"
