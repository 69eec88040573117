"""Real Keystone tokens through keystonemiddleware, judged by the policy.

Secure RBAC with scope enforcement (PLACEMENT_ENFORCE_NEW_DEFAULTS=true,
PLACEMENT_ENFORCE_SCOPE=true): admin and service users may manage
providers, a project reader may read only its own project's usages, a
system-scoped token is refused, an invalid token gets keystonemiddleware's
401.  The legacy mode gets a second server (admin only).
"""
import time
import uuid

import pytest
import requests

from tests.keystone.environment import Keystone, PlacementServer, ensure_venv, log, stop

pytestmark = pytest.mark.keystone

MV = {"OpenStack-API-Version": "placement latest"}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    timings = {}
    started = time.monotonic()
    venv = ensure_venv()
    timings["venv"] = time.monotonic() - started

    mark = time.monotonic()
    keystone = Keystone(venv, tmp_path_factory.mktemp("keystone"))
    keystone.setup()
    timings["keystone"] = time.monotonic() - mark

    mark = time.monotonic()
    admin = keystone.token("admin", project="admin")
    service_project = keystone.ensure_project(admin, "service")
    demo = keystone.ensure_project(admin, "demo")
    other = keystone.ensure_project(admin, "other")
    keystone.add_user(admin, "placement", service_project, ["service"])
    keystone.add_user(admin, "nova", service_project, ["service"])
    keystone.add_user(admin, "reader", demo, ["reader"])
    keystone.add_user(admin, "member", demo, ["member", "reader"])
    timings["identities"] = time.monotonic() - mark

    mark = time.monotonic()
    secure = PlacementServer(venv, tmp_path_factory.mktemp("placement-secure"), keystone.url,
                             PLACEMENT_ENFORCE_NEW_DEFAULTS="true", PLACEMENT_ENFORCE_SCOPE="true")
    legacy = PlacementServer(venv, tmp_path_factory.mktemp("placement-legacy"), keystone.url,
                             PLACEMENT_ENFORCE_NEW_DEFAULTS="false",
                             PLACEMENT_ENFORCE_SCOPE="true")
    try:
        secure.setup()
        legacy.setup()
        timings["placement"] = time.monotonic() - mark
        timings["total"] = time.monotonic() - started
        log("setup times: " + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items()))
        tokens = {
            "admin": admin,
            "service": keystone.token("nova", project="service"),
            "reader": keystone.token("reader", project="demo"),
            "member": keystone.token("member", project="demo"),
            "system_admin": keystone.token("admin", system=True),
        }
        yield {"secure": secure.url, "legacy": legacy.url, "tokens": tokens,
               "projects": {"demo": demo, "other": other}, "keystone": keystone.url}
    finally:
        stop(secure.process)
        stop(legacy.process)
        stop(keystone.process)


def call(world, method, path, who=None, server="secure", token=None, **kw):
    headers = dict(MV)
    if who is not None:
        headers["X-Auth-Token"] = world["tokens"][who]
    if token is not None:
        headers["X-Auth-Token"] = token
    return requests.request(method, world[server] + path, headers=headers, timeout=30, **kw)


def test_root_is_open(world):
    response = call(world, "GET", "/")
    assert response.status_code == 200
    assert response.json()["versions"][0]["id"] == "v1.0"


def test_missing_and_invalid_tokens_are_401(world):
    response = call(world, "GET", "/resource_providers")
    assert response.status_code == 401
    assert world["keystone"] in response.headers["WWW-Authenticate"]
    assert call(world, "GET", "/resource_providers", token="not-a-token").status_code == 401


@pytest.mark.parametrize("who,status", [
    ("admin", 200), ("service", 200), ("reader", 403), ("member", 403), ("system_admin", 403),
])
def test_list_providers_secure(world, who, status):
    response = call(world, "GET", "/resource_providers", who)
    assert response.status_code == status, response.text
    if status == 403:
        detail = response.json()["errors"][0]["detail"]
        assert "Policy does not allow placement:resource_providers:list" in detail


@pytest.mark.parametrize("who,status", [
    ("admin", 200), ("service", 200), ("reader", 403), ("member", 403), ("system_admin", 403),
])
def test_list_providers_legacy(world, who, status):
    # legacy mode accepts the new default or role:admin, so the service
    # role still passes; readers and system-scoped tokens do not.
    response = call(world, "GET", "/resource_providers", who, server="legacy")
    assert response.status_code == status, response.text


def _reshape_of_a_new_provider(world, server):
    """A valid reshape (204 for whoever passes the policy): a new provider,
    made by the service user, given no inventory."""
    rp = str(uuid.uuid4())
    made = call(world, "POST", "/resource_providers", "service", server=server,
                json={"name": f"rs-{rp}", "uuid": rp})
    assert made.status_code == 200, made.text
    return {"json": {"inventories": {rp: {"resource_provider_generation": 0, "inventories": {}}},
                     "allocations": {}}}


def test_reshaper_is_for_services_only_in_secure_mode(world):
    kw = _reshape_of_a_new_provider(world, "secure")
    assert call(world, "POST", "/reshaper", "admin", **kw).status_code == 403
    response = call(world, "POST", "/reshaper", "service", **kw)
    assert response.status_code == 204, response.text
    kw = _reshape_of_a_new_provider(world, "legacy")
    response = call(world, "POST", "/reshaper", "admin", server="legacy", **kw)
    assert response.status_code == 204, response.text


def test_service_user_writes_and_reader_cannot(world):
    rp = str(uuid.uuid4())
    response = call(world, "POST", "/resource_providers", "service",
                    json={"name": f"cn-{rp}", "uuid": rp})
    assert response.status_code == 200, response.text
    assert call(world, "GET", f"/resource_providers/{rp}", "admin").json()["uuid"] == rp
    response = call(world, "DELETE", f"/resource_providers/{rp}", "reader")
    assert response.status_code == 403
    assert call(world, "DELETE", f"/resource_providers/{rp}", "admin").status_code == 204


def test_reader_sees_only_its_projects_usages(world):
    demo, other = world["projects"]["demo"], world["projects"]["other"]
    response = call(world, "GET", f"/usages?project_id={demo}", "reader")
    assert response.status_code == 200, response.text
    assert response.json()["usages"] == {}
    assert call(world, "GET", f"/usages?project_id={other}", "reader").status_code == 403
    assert call(world, "GET", f"/usages?project_id={other}", "admin").status_code == 200
