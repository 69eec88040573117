"""Auth strategies: noauth2 contexts, and the keystone strategy's wiring."""
import builtins

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory

from placement_core import edge
from placement_site import keystone


def context_for(**headers):
    meta = {"HTTP_" + k.upper().replace("-", "_"): v for k, v in headers.items()}
    return edge.noauth2_context(RequestFactory().get("/resource_providers", **meta))


def test_noauth2_tokens():
    assert context_for() is None
    admin = context_for(x_auth_token="admin")
    assert (admin.user_id, admin.project_id, admin.roles, admin.system_scope) == (
        "admin", "admin", ["admin"], None)
    user = context_for(x_auth_token="alice:proj")
    assert (user.user_id, user.project_id, user.roles) == ("alice", "proj", [])
    roles = context_for(x_auth_token="admin", x_roles="reader,member", x_project_id="p2")
    assert (roles.project_id, roles.roles) == ("p2", ["reader", "member"])
    system = context_for(x_auth_token="user", openstack_system_scope="all")
    assert system.system_scope == "all"


def test_noauth2_401_and_open_root(api):
    response = api.get("/resource_providers", token=None)
    assert response.status_code == 401
    assert response.json()["errors"][0]["title"] == "Unauthorized"
    assert api.get("/", token=None).status_code == 200


def test_keystone_strategy_ignores_unchecked_identity_headers(api, settings):
    settings.PLACEMENT_AUTH_STRATEGY = "keystone"
    spoofed = {"x-identity-status": "Confirmed", "x-roles": "admin", "x-user-id": "u",
               "x-project-id": "p"}
    assert api.get("/resource_providers", token=None, headers=spoofed).status_code == 401
    assert api.get("/", token=None, headers=spoofed).status_code == 200


def test_keystone_strategy_context_from_auth_token_headers(settings):
    settings.PLACEMENT_AUTH_STRATEGY = "keystone"
    request = RequestFactory().get(
        "/resource_providers", HTTP_X_IDENTITY_STATUS="Confirmed", HTTP_X_ROLES="Admin,reader",
        HTTP_X_USER_ID="u1", HTTP_X_PROJECT_ID="p1",
    )
    request.META[keystone.AUTHENTICATED_ENVIRON_KEY] = True
    context = edge.authenticate(request)
    assert (context.user_id, context.project_id, context.roles) == ("u1", "p1", ["admin", "reader"])


def test_keystone_conf_from_environment():
    conf = keystone.middleware_conf({
        "PLACEMENT_KEYSTONE_AUTH_URL": "http://127.0.0.1:5000/v3",
        "PLACEMENT_KEYSTONE_PASSWORD": "secret",
        "PLACEMENT_KEYSTONE_INTERFACE": "public",
    })
    assert conf["auth_url"] == conf["www_authenticate_uri"] == "http://127.0.0.1:5000/v3"
    assert conf["password"] == "secret"
    assert conf["username"] == "placement"
    assert conf["project_name"] == "service"
    assert conf["auth_type"] == "password"
    assert conf["interface"] == "public"
    assert conf["delay_auth_decision"] == "false"


def test_keystone_conf_needs_url_and_password():
    with pytest.raises(ImproperlyConfigured, match="PLACEMENT_KEYSTONE_AUTH_URL"):
        keystone.middleware_conf({"PLACEMENT_KEYSTONE_PASSWORD": "x"})
    with pytest.raises(ImproperlyConfigured, match="PLACEMENT_KEYSTONE_PASSWORD"):
        keystone.middleware_conf({"PLACEMENT_KEYSTONE_AUTH_URL": "http://x"})


def test_missing_keystonemiddleware_is_a_clear_startup_error(monkeypatch):
    real_import = builtins.__import__

    def no_keystonemiddleware(name, *args, **kwargs):
        if name.startswith("keystonemiddleware"):
            raise ImportError("No module named 'keystonemiddleware'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_keystonemiddleware)
    with pytest.raises(ImproperlyConfigured, match="pip install keystonemiddleware"):
        keystone.wrap(lambda environ, start_response: [])
