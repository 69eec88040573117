"""Callers as the RBAC gabbits describe them (noauth2 headers)."""
import pytest

from placement_core.context import RequestContext

PROJECT = "6f3a1c2e-0000-4000-8000-000000000001"
OTHER_PROJECT = "6f3a1c2e-0000-4000-8000-000000000002"

# name -> (noauth2 headers, RequestContext)
PERSONAS = {
    "admin": (
        {"x-roles": "admin", "x-project-id": "admin_project"},
        RequestContext("user", "admin_project", ["admin"]),
    ),
    "service": (
        {"x-roles": "service", "x-project-id": "service_project"},
        RequestContext("user", "service_project", ["service"]),
    ),
    "system_admin": (
        {"x-roles": "admin,member,reader", "openstack-system-scope": "all"},
        RequestContext("user", None, ["admin", "member", "reader"], "all"),
    ),
    "system_reader": (
        {"x-roles": "reader", "openstack-system-scope": "all"},
        RequestContext("user", None, ["reader"], "all"),
    ),
    "project_admin": (
        {"x-roles": "admin,member,reader", "x-project-id": PROJECT},
        RequestContext("user", PROJECT, ["admin", "member", "reader"]),
    ),
    "project_member": (
        {"x-roles": "member,reader", "x-project-id": PROJECT},
        RequestContext("user", PROJECT, ["member", "reader"]),
    ),
    "project_reader": (
        {"x-roles": "reader", "x-project-id": PROJECT},
        RequestContext("user", PROJECT, ["reader"]),
    ),
}


@pytest.fixture
def legacy(settings):
    settings.PLACEMENT_ENFORCE_NEW_DEFAULTS = False
    settings.PLACEMENT_ENFORCE_SCOPE = True
    return settings


@pytest.fixture
def secure(settings):
    settings.PLACEMENT_ENFORCE_NEW_DEFAULTS = True
    settings.PLACEMENT_ENFORCE_SCOPE = True
    return settings
