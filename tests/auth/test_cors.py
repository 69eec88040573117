"""CORS from oslo.middleware with the [cors] options, through the WSGI edge
wsgi.py builds (cors.yaml, non-cors.yaml)."""
import pytest

from placement_site import config
from tests import wsgi_stack

VALID = "http://valid.example.com"
pytestmark = pytest.mark.django_db


def request(method="GET", path="/", headers=None, token="user", **cors):
    cors.setdefault("allowed_origin", [VALID])
    headers = dict(headers or {})
    if token:
        headers["X-Auth-Token"] = token
    return wsgi_stack.call(method, path, headers, cors=cors)


def preflight(origin, method="GET", headers=None, token="user", **cors):
    extra = {"Origin": origin, "Access-Control-Request-Method": method}
    if headers is not None:
        extra["Access-Control-Request-Headers"] = headers
    return request("OPTIONS", "/", extra, token, **cors)


def test_valid_preflight():
    response = preflight(VALID, headers="openstack-api-version",
                         allow_headers=["openstack-api-version"])
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == VALID
    assert response.headers["access-control-allow-headers"] == "openstack-api-version"
    assert response.headers["access-control-allow-methods"] == "GET"
    assert "Origin" in response.headers["vary"]


def test_preflight_needs_no_token():
    response = preflight(VALID, token=None)
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == VALID
    response = request("OPTIONS", "/resource_providers", token=None,
                       headers={"Origin": VALID, "Access-Control-Request-Method": "POST"})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == VALID


@pytest.mark.parametrize("origin,method,headers", [
    ("http://invalid.example.com", "GET", None),
    (VALID, "TRACE", None),
    (VALID, "GET", "x-not-allowed"),
])
def test_refused_preflight_has_no_cors_headers(origin, method, headers):
    response = preflight(origin, method, headers)
    assert response.status_code == 200
    assert "access-control-allow-origin" not in response.headers


def test_actual_request_from_valid_origin():
    response = request(headers={"Origin": VALID})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == VALID
    assert "openstack-api-version" in response.headers["access-control-expose-headers"].lower()


def test_actual_request_from_other_origin():
    response = request(headers={"Origin": "http://invalid.example.com"})
    assert response.status_code == 200
    assert "access-control-allow-origin" not in response.headers


def test_default_allow_headers_are_this_services():
    response = preflight(VALID, headers="X-Auth-Token,OpenStack-API-Version")
    assert response.headers["access-control-allow-origin"] == VALID
    assert config.CORS_HEADERS[-1] == "OpenStack-API-Version"


def test_an_empty_cors_list_means_the_standard_one():
    values, conf = config.load({"OS_CORS__ALLOW_HEADERS": "", "OS_CORS__EXPOSE_HEADERS": "",
                                "OS_CORS__ALLOW_METHODS": "",
                                "OS_PLACEMENT_CONFIG_DIR": "/nonexistent"})
    assert values["PLACEMENT_CORS_ALLOW_HEADERS"] == list(config.CORS_HEADERS)
    assert conf.cors.allow_headers == list(config.CORS_HEADERS)
    assert conf.cors.expose_headers == list(config.CORS_HEADERS)
    assert conf.cors.allow_methods == ["GET", "PUT", "POST", "DELETE", "PATCH"]


def test_cors_off_without_an_allowed_origin():
    response = preflight(VALID, allowed_origin=[])
    assert response.status_code == 405
    response = request(headers={"Origin": VALID}, allowed_origin=[])
    assert response.status_code == 200
    assert "access-control-allow-origin" not in response.headers


def test_allow_methods_replaces_the_methods_a_preflight_may_ask_for():
    assert preflight(VALID, "HEAD", allow_methods=["GET", "HEAD"]).headers[
        "access-control-allow-methods"] == "HEAD"
    refused = preflight(VALID, "DELETE", allow_methods=["GET", "HEAD"])
    assert refused.status_code == 200 and "access-control-allow-origin" not in refused.headers


def test_expose_headers_names_what_a_script_may_read():
    response = request(headers={"Origin": VALID},
                       expose_headers=["X-Openstack-Request-Id", "Location"])
    assert response.headers["access-control-expose-headers"] == "X-Openstack-Request-Id,Location"


def test_max_age():
    assert preflight(VALID).headers["access-control-max-age"] == "3600"
    assert preflight(VALID, max_age=120).headers["access-control-max-age"] == "120"
    response = preflight(VALID, max_age=0)
    assert response.headers["access-control-allow-origin"] == VALID
    assert "access-control-max-age" not in response.headers


def test_allow_credentials_false_leaves_the_header_out():
    assert preflight(VALID).headers["access-control-allow-credentials"] == "true"
    assert request(headers={"Origin": VALID}).headers[
        "access-control-allow-credentials"] == "true"
    response = preflight(VALID, allow_credentials=False)
    assert response.headers["access-control-allow-origin"] == VALID
    assert "access-control-allow-credentials" not in response.headers
    response = request(headers={"Origin": VALID}, allow_credentials=False)
    assert response.headers["access-control-allow-origin"] == VALID
    assert "access-control-allow-credentials" not in response.headers


def test_placement_cors_variables_reach_oslo_middleware():
    values, conf = config.load({"PLACEMENT_CORS_ALLOWED_ORIGINS": VALID,
                                "PLACEMENT_CORS_MAX_AGE": "60"})
    assert values["PLACEMENT_CORS_ALLOWED_ORIGINS"] == [VALID]
    assert (conf.cors.allowed_origin, conf.cors.max_age) == ([VALID], 60)
