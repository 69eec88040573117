"""The HTTP edge every endpoint shares: versions, auth, errors, headers."""
import re

import pytest

pytestmark = pytest.mark.django_db


def test_root_needs_no_token_and_lists_versions(api):
    response = api.get("/", token=None)
    assert response.status_code == 200
    version = response.json()["versions"][0]
    assert version["min_version"] == "1.0"
    assert version["max_version"] == "1.39"
    assert version["status"] == "CURRENT"
    assert response["openstack-api-version"] == "placement 1.0"
    assert "openstack-api-version" in response["vary"]


def test_request_id_on_every_response(api):
    for response in (api.get("/"), api.get("/nowhere"), api.get("/", mv="9.9")):
        assert re.match(r"^req-[0-9a-f-]{36}$", response["x-openstack-request-id"])


def test_latest_is_max_version(api):
    assert api.get("/", mv="latest")["openstack-api-version"] == "placement 1.39"


@pytest.mark.parametrize("bad", ["pony.horse", "1.2.3", "1"])
def test_malformed_version_is_400(api, bad):
    response = api.get("/", mv=bad)
    assert response.status_code == 400
    assert f"invalid version string: {bad}" in response.json()["errors"][0]["detail"]


@pytest.mark.parametrize("unsupported", ["0.5", "1.40", "2.0"])
def test_unsupported_version_is_406_with_bounds(api, unsupported):
    response = api.get("/", mv=unsupported)
    assert response.status_code == 406
    error = response.json()["errors"][0]
    assert error["title"] == "Not Acceptable"
    assert error["min_version"] == "1.0"
    assert error["max_version"] == "1.39"
    assert f"Unacceptable version header: {unsupported}" in error["detail"]


def test_unsupported_version_html_when_asked(api):
    response = api.get("/", mv="0.5", headers={"accept": "text/html"})
    assert response.status_code == 406
    assert response["content-type"].startswith("text/html")


@pytest.mark.parametrize("accept", ["text/plain", "image/png"])
def test_error_json_for_a_client_taking_neither_json_nor_html(api, accept):
    # Upstream writes plain text here; the JSON body says the same
    # (docs/conformance.md, "Harmless").
    response = api.get("/resource_providers", mv="1.5.1", headers={"accept": accept})
    assert response.status_code == 400
    assert response["content-type"] == "application/json"
    assert "invalid version string: 1.5.1" in response.json()["errors"][0]["detail"]
    refused = api.get("/resource_providers", headers={"accept": accept})
    assert refused.status_code == 406
    assert refused.json()["errors"][0]["title"] == "Not Acceptable"


def test_error_json_when_json_is_taken_beside_plain_text(api):
    response = api.get("/", mv="1.5.1", headers={"accept": "text/plain, */*;q=0.1"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["status"] == 400


@pytest.mark.parametrize("mv, status", [("LATEST", 400), ("1.99", 406), ("latest", 405)])
def test_head_error_is_empty_html_as_upstream(api, mv, status):
    # Upstream's error pages answer HEAD with no body and an HTML type,
    # whatever the Accept header says.
    response = api.request("HEAD", "/resource_providers", mv=mv,
                           headers={"accept": "application/json"})
    assert response.status_code == status
    assert response["content-type"] == "text/html; charset=UTF-8"
    assert response.content == b""


def test_no_token_is_401_except_root(api):
    assert api.get("/resource_providers", token=None).status_code == 401
    assert api.get("/", token=None).status_code == 200


def test_unknown_path_is_404_in_placement_format(api):
    response = api.get("/barnabas")
    assert response.status_code == 404
    error = response.json()["errors"][0]
    assert error["title"] == "Not Found"
    assert "code" not in error
    assert api.get("/barnabas", mv="1.23").json()["errors"][0]["code"] == "placement.undefined_code"


def test_wrong_method_is_405_with_allow(api):
    response = api.delete("/")
    assert response.status_code == 405
    assert response["allow"] == "GET"
    assert response.json()["errors"][0]["title"] == "Method Not Allowed"


def test_cache_headers_from_1_15_only(api):
    new = api.get("/", mv="1.15")
    assert new["cache-control"] == "no-cache"
    assert re.match(r"^\w+, \d+ \w+ \d{4} [\d:]+ GMT$", new["last-modified"])
    old = api.get("/", mv="1.14")
    assert "cache-control" not in old
    assert "last-modified" not in old


def test_body_without_content_type_is_400(api):
    response = api.post("/resource_providers", data=b"hello", content_type="")
    assert response.status_code == 400
    assert "content-type header required" in response.content.decode()


def test_cache_headers_set_by_a_view_are_dropped_before_1_15(api):
    # Views always hand their last-modified time to the edge; the edge alone
    # decides that cache headers exist from 1.15 on.
    assert api.put("/traits/CUSTOM_EDGE", mv="1.6").status_code == 201
    old = api.get("/traits/CUSTOM_EDGE", mv="1.14")
    assert old.status_code == 204
    assert "last-modified" not in old and "cache-control" not in old
    new = api.get("/traits/CUSTOM_EDGE", mv="1.15")
    assert new["cache-control"] == "no-cache"
    assert re.match(r"^\w+, \d+ \w+ \d{4} [\d:]+ GMT$", new["last-modified"])
