"""The 403 a policy denial answers with."""
import pytest

from tests.auth.conftest import PERSONAS


@pytest.fixture(autouse=True)
def _legacy(legacy):
    return legacy


def test_forbidden_body(api):
    response = api.get("/resource_providers", token="user", headers=PERSONAS["project_member"][0])
    assert response.status_code == 403
    assert response["content-type"].startswith("application/json")
    (error,) = response.json()["errors"]
    assert error["status"] == 403
    assert error["title"] == "Forbidden"
    assert "Policy does not allow placement:resource_providers:list to be performed." in error[
        "detail"
    ]
    assert error["request_id"] == response["openstack-request-id"]
    assert "code" not in error


def test_forbidden_body_code_from_1_23(api):
    response = api.get("/resource_providers", token="user", mv="1.23")
    assert response.status_code == 403
    assert response.json()["errors"][0]["code"] == "placement.undefined_code"


def test_plain_user_token_has_no_roles(api):
    assert api.get("/resource_providers", token="somebody").status_code == 403
    assert api.get("/resource_providers", token="admin").status_code == 200
    # x-roles replaces the admin token's implicit role
    assert api.get("/resource_providers", token="admin", headers={"x-roles": "reader"}).status_code == 403
