"""CORS: preflights and actual requests, on and off (cors.yaml, non-cors.yaml)."""
import pytest

VALID = "http://valid.example.com"


@pytest.fixture
def cors(settings):
    settings.PLACEMENT_CORS_ALLOWED_ORIGINS = [VALID]
    settings.PLACEMENT_CORS_ALLOW_HEADERS = ["openstack-api-version"]
    return settings


def preflight(api, origin, method="GET", headers=None, token="user"):
    extra = {"origin": origin, "access-control-request-method": method}
    if headers is not None:
        extra["access-control-request-headers"] = headers
    return api.request("OPTIONS", "/", token=token, headers=extra)


def test_valid_preflight(api, cors):
    response = preflight(api, VALID, headers="openstack-api-version")
    assert response.status_code == 200
    assert response["access-control-allow-origin"] == VALID
    assert response["access-control-allow-headers"] == "openstack-api-version"
    assert response["access-control-allow-methods"] == "GET"
    assert "Origin" in response["vary"]


def test_preflight_needs_no_token(api, cors):
    response = preflight(api, VALID, token=None)
    assert response.status_code == 200
    assert response["access-control-allow-origin"] == VALID
    response = api.request(
        "OPTIONS", "/resource_providers", token=None,
        headers={"origin": VALID, "access-control-request-method": "POST"},
    )
    assert response.status_code == 200
    assert response["access-control-allow-origin"] == VALID


@pytest.mark.parametrize(
    "origin,method,headers",
    [
        ("http://invalid.example.com", "GET", None),
        (VALID, "TRACE", None),
        (VALID, "GET", "x-not-allowed"),
    ],
)
def test_refused_preflight_has_no_cors_headers(api, cors, origin, method, headers):
    response = preflight(api, origin, method, headers)
    assert response.status_code == 200
    assert "access-control-allow-origin" not in response


def test_actual_request_from_valid_origin(api, cors):
    response = api.get("/", headers={"origin": VALID, "access-control-request-method": "GET"})
    assert response.status_code == 200
    assert response["access-control-allow-origin"] == VALID
    assert "openstack-api-version" in response["access-control-expose-headers"].lower()


def test_actual_request_from_other_origin(api, cors):
    response = api.get("/", headers={"origin": "http://invalid.example.com"})
    assert response.status_code == 200
    assert "access-control-allow-origin" not in response


def test_default_allow_headers(api, settings):
    settings.PLACEMENT_CORS_ALLOWED_ORIGINS = [VALID]
    response = preflight(api, VALID, headers="X-Auth-Token,OpenStack-API-Version")
    assert response["access-control-allow-origin"] == VALID


def test_an_empty_cors_list_means_the_standard_one():
    from placement_site import config

    values, _ = config.load({"OS_CORS__ALLOW_HEADERS": "", "OS_CORS__EXPOSE_HEADERS": "",
                             "OS_CORS__ALLOW_METHODS": "", "OS_PLACEMENT_CONFIG_DIR": "/nonexistent"})
    assert values["PLACEMENT_CORS_ALLOW_HEADERS"] == list(config.CORS_HEADERS)
    assert values["PLACEMENT_CORS_EXPOSE_HEADERS"] == list(config.CORS_HEADERS)
    assert values["PLACEMENT_CORS_ALLOW_METHODS"] == ["GET", "PUT", "POST", "DELETE", "PATCH"]


def test_cors_off(api, settings):
    settings.PLACEMENT_CORS_ALLOWED_ORIGINS = []
    response = preflight(api, VALID)
    assert response.status_code == 405
    response = api.get("/", headers={"origin": VALID, "access-control-request-method": "GET"})
    assert response.status_code == 200
    assert "access-control-allow-origin" not in response


# --- [cors] allow_methods, expose_headers, max_age, allow_credentials --------


def test_allow_methods_replaces_the_methods_a_preflight_may_ask_for(api, cors):
    cors.PLACEMENT_CORS_ALLOW_METHODS = ["GET", "HEAD"]
    assert preflight(api, VALID, "HEAD")["access-control-allow-methods"] == "HEAD"
    refused = preflight(api, VALID, "DELETE")
    assert refused.status_code == 200 and "access-control-allow-origin" not in refused


def test_expose_headers_names_what_a_script_may_read(api, cors):
    cors.PLACEMENT_CORS_EXPOSE_HEADERS = ["X-Openstack-Request-Id", "Location"]
    response = api.get("/", headers={"origin": VALID})
    assert response["access-control-expose-headers"] == "X-Openstack-Request-Id,Location"


def test_max_age(api, cors):
    assert preflight(api, VALID)["access-control-max-age"] == "3600"
    cors.PLACEMENT_CORS_MAX_AGE = 120
    assert preflight(api, VALID)["access-control-max-age"] == "120"
    cors.PLACEMENT_CORS_MAX_AGE = 0
    response = preflight(api, VALID)
    assert response["access-control-allow-origin"] == VALID
    assert "access-control-max-age" not in response


def test_allow_credentials_false_leaves_the_header_out(api, cors):
    assert preflight(api, VALID)["access-control-allow-credentials"] == "true"
    assert api.get("/", headers={"origin": VALID})["access-control-allow-credentials"] == "true"
    cors.PLACEMENT_CORS_ALLOW_CREDENTIALS = False
    response = preflight(api, VALID)
    assert response["access-control-allow-origin"] == VALID
    assert "access-control-allow-credentials" not in response
    response = api.get("/", headers={"origin": VALID})
    assert response["access-control-allow-origin"] == VALID
    assert "access-control-allow-credentials" not in response
