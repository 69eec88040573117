"""Microversion header parsing and response headers as upstream (B16, B17)."""
import pytest


@pytest.mark.parametrize("value, status", [
    ("LATEST", 400), ("Latest", 400), ("1.-1", 406), ("1.40", 406), ("0.9", 406),
    ("1", 400), ("1.x", 400), ("1.2.3", 400),
])
def test_version_values_upstream_refuses(api, value, status):
    """B16: only lowercase ``latest`` names the newest version; two integers
    that name no version are 406, anything else 400. A refused version
    never reaches the view (the DELETE does not run)."""
    api.put("/resource_classes/CUSTOM_KEEP", mv="1.7")
    response = api.delete("/resource_classes/CUSTOM_KEEP", mv=value)
    assert response.status_code == status
    assert api.get("/resource_classes/CUSTOM_KEEP", mv="1.7").status_code == 200


@pytest.mark.parametrize("value, expected", [
    ("latest", "1.39"), ("1.01", "1.1"), (" 1.5 ", "1.5"),
    ("1.2, placement 1.20", "1.20"),
])
def test_version_values_upstream_accepts(api, value, expected):
    """B16: what upstream's parser reads as a version (the last placement
    entry of the header wins)."""
    response = api.get("/", headers={"OpenStack-API-Version": f"placement {value}"})
    assert response.status_code == 200
    assert response["openstack-api-version"] == f"placement {expected}"


MISSING = "00000000-0000-0000-0000-000000000001"


@pytest.mark.parametrize("method, path, status, vary", [
    # Errors upstream raises around its handlers: no vary.
    ("GET", f"/resource_providers/{MISSING}", 404, False),
    ("PUT", f"/resource_providers/{MISSING}/traits", 404, False),
    ("GET", "/resource_classes/CUSTOM_MISSING", 404, False),
    ("PUT", "/resource_classes/CUSTOM_MISSING", 404, False),
    ("GET", "/no/such/route", 404, False),
    ("PUT", f"/resource_providers/{MISSING}/inventories/VCPU", 404, False),
    ("DELETE", f"/resource_providers/{MISSING}/inventories/VCPU", 404, False),
    ("DELETE", "/resource_classes/VCPU", 400, True),
    # Errors its handlers raise: vary, as on a success.
    ("GET", f"/resource_providers/{MISSING}/inventories", 404, True),
    ("DELETE", f"/resource_providers/{MISSING}", 404, True),
    ("GET", "/traits/CUSTOM_MISSING", 404, True),
    ("PATCH", "/resource_providers", 405, True),
])
def test_vary_on_errors_as_upstream(api, method, path, status, vary):
    """B17: upstream adds vary to the errors its handlers raise, not to
    those raised around them; the version header is on all of them."""
    body = None
    if method == "PUT":
        body = ({"total": 1, "resource_provider_generation": 0} if "inventories" in path
                else {"name": "CUSTOM_OTHER"} if "resource_classes" in path
                else {"traits": [], "resource_provider_generation": 0})
    # 1.6: PUT /resource_classes/{name} renames (from 1.7 it creates).
    mv = "1.6" if method == "PUT" and "resource_classes" in path else "1.28"
    response = api.request(method, path, mv=mv, json=body)
    assert response.status_code == status
    assert ("vary" in response) is vary
    assert response["openstack-api-version"] == f"placement {mv}"


def test_policy_refusal_and_missing_content_type_carry_no_vary(api):
    """B17: a 403 from the policy and the content-type check's 400."""
    response = api.get("/resource_providers", mv="1.28", token="user")
    assert (response.status_code, "vary" in response) == (403, False)
    response = api.post("/resource_providers", mv="1.28", data=b"{}")
    assert (response.status_code, "vary" in response) == (400, False)
    assert response["openstack-api-version"] == "placement 1.28"
    assert api.get("/resource_providers", mv="1.28")["vary"] == "openstack-api-version"


@pytest.mark.parametrize("value", ["1.40", "LATEST"])
def test_refused_version_answers_carry_no_version_header(api, value):
    """B17: no version was negotiated, so none is named."""
    response = api.get("/resource_providers", mv=value)
    assert response.status_code in (400, 406)
    assert "openstack-api-version" not in response
    assert "vary" not in response
