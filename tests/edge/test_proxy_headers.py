"""Behind a proxy ([oslo_middleware] enable_proxy_headers_parsing): links,
Location headers and console redirects carry the scheme, host and path
prefix the client used, through the same WSGI wrapper wsgi.py applies."""
import json
import logging
import uuid

import pytest

from placement_site import httpstack
from tests import wsgi_stack


def call(headers=None, method="GET", path="/", body=b"", token="admin", mv="1.39",
         parsing=True):
    """One request through the WSGI edge wsgi.py builds: (status, headers, body)."""
    headers = dict(headers or {})
    if token:
        headers["X-Auth-Token"] = token
    if mv:
        headers["OpenStack-API-Version"] = f"placement {mv}"
    environ = {"SERVER_NAME": "backend.internal", "SERVER_PORT": "8778",
               "HTTP_HOST": "backend.internal:8778", "REMOTE_ADDR": "10.0.0.2"}
    response = wsgi_stack.call(method, path, headers, body, environ=environ,
                               oslo_middleware={"enable_proxy_headers_parsing": parsing})
    return (response.status_code, {k.lower(): v for k, v in response.headerlist},
            response.body)


SITE = "https://cloud.example.com"
BEHIND = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "cloud.example.com",
          "X-Forwarded-Prefix": "/placement"}


@pytest.fixture
def proxied(settings):
    settings.ALLOWED_HOSTS = ["*"]
    return settings


def create_provider(headers, mv="1.39", parsing=True):
    body = json.dumps({"name": f"rp-{uuid.uuid4()}"}).encode()
    return call(headers, "POST", "/resource_providers", body, mv=mv, parsing=parsing)


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
    # Absolute, as upstream's: oslo.middleware's webob makes every Location so.
    assert headers["location"] == f"{SITE}/placement/resource_classes/CUSTOM_PROXIED"
    status, headers, _ = call(BEHIND, "PUT", "/traits/CUSTOM_PROXIED_TRAIT")
    assert status == 201
    assert headers["location"] == f"{SITE}/placement/traits/CUSTOM_PROXIED_TRAIT"


@pytest.mark.django_db(transaction=True)
def test_rfc7239_forwarded_header(proxied, caplog):
    # oslo.middleware takes values as written: a quoted host= (RFC 7239's
    # spelling for one with a port) would reach Django quoted, and be a 400.
    forwarded = {"Forwarded": 'for="[2001:db8::17]:4711";proto=https;host=api.example.net:8443, '
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
    assert headers["location"] == f"{SITE}/placement/console/login/?next=/placement/console/"
    status, _, body = call(BEHIND, path="/console/login/", token=None, mv=None)
    assert status == 200
    assert b'href="/placement/console/assets/console.css"' in body


@pytest.mark.django_db(transaction=True)
def test_headers_ignored_when_the_option_is_off():
    status, headers, _ = create_provider(BEHIND, mv="1.19", parsing=False)
    assert status == 201
    assert headers["location"].startswith("http://backend.internal:8778/resource_providers/")
    status, headers, _ = call(BEHIND, path="/console/", token=None, mv=None, parsing=False)
    assert headers["location"] == (
        "http://backend.internal:8778/console/login/?next=/console/")


@pytest.mark.django_db(transaction=True)
def test_a_forwarded_host_django_refuses_is_a_400(settings):
    # oslo.middleware copies the host as it comes; Django checks it
    # (ALLOWED_HOSTS and its shape) before any view runs.
    settings.ALLOWED_HOSTS = ["cloud.example.com"]
    status, _, _ = call({"X-Forwarded-Host": "evil.example"})
    assert status == 400
    status, _, _ = call({"X-Forwarded-Host": "cloud.example.com"})
    assert status == 200


@pytest.mark.parametrize("environ,address", [
    ({"HTTP_X_FORWARDED_FOR": "203.0.113.9"}, "203.0.113.9"),
    # The client sent the first entry; the proxy appended the real address.
    ({"HTTP_X_FORWARDED_FOR": "198.51.100.66, 203.0.113.9"}, "203.0.113.9"),
    ({"HTTP_FORWARDED": "for=198.51.100.66;proto=https, for=203.0.113.9"}, "203.0.113.9"),
    ({"HTTP_FORWARDED": 'for="[2001:db8:cafe::17]:4711";proto=https'}, "2001:db8:cafe::17"),
    ({"HTTP_FORWARDED": "for=192.0.2.43:8080"}, "192.0.2.43"),
    ({"HTTP_FORWARDED": "for=unknown"}, ""),
    ({"HTTP_FORWARDED": "for=_hidden"}, ""),
    ({"HTTP_FORWARDED": "proto=https"}, ""),
])
def test_the_client_address_is_the_last_one_listed(environ, address):
    assert httpstack.last_address(environ) == address


@pytest.mark.django_db(transaction=True)
def test_a_forged_client_address_is_not_logged(proxied, caplog):
    with caplog.at_level(logging.INFO, logger="placement.requestlog"):
        status, _, _ = call({"X-Forwarded-For": "198.51.100.66, 203.0.113.9"})
    assert status == 200
    [line] = [r.getMessage() for r in caplog.records if r.name == "placement.requestlog"]
    assert " 203.0.113.9 " in line and "198.51.100.66" not in line
