"""GET /explain and /history/... are behind policy rules (placement:explain,
placement:history:list) like /metrics: the defaults let an administrator
or a service in, and a policy file changes who may."""
import os
import time

import pytest
from django.test import Client

from tests.support.claims import new_uuid

pytestmark = pytest.mark.django_db

PATHS = {
    "placement:explain": "/explain?resources=VCPU:1",
    "placement:history:list": "/history/consumers/{uuid}",
}


def _get(path, token, roles=None):
    extra = {"HTTP_X_AUTH_TOKEN": token}
    if roles:
        extra["HTTP_X_ROLES"] = roles
    return Client().get(path.format(uuid=new_uuid()), **extra)


@pytest.mark.parametrize("rule", sorted(PATHS))
def test_defaults_let_admin_and_service_in(rule):
    path = PATHS[rule].replace("{uuid}", new_uuid())
    assert Client().get(path).status_code == 401
    assert _get(path, "admin").status_code == 200
    assert _get(path, "nova", roles="service").status_code == 200
    denied = _get(path, "alice", roles="member")
    assert denied.status_code == 403
    assert rule in denied.json()["errors"][0]["detail"]


@pytest.mark.parametrize("rule", sorted(PATHS))
def test_a_policy_file_changes_them(rule, settings, tmp_path):
    path = tmp_path / "policy.yaml"
    path.write_text(f'"{rule}": "role:auditor"\n')
    stamp = time.time() + 10
    os.utime(path, (stamp, stamp))
    settings.PLACEMENT_POLICY_FILE = str(path)
    assert _get(PATHS[rule], "carol", roles="auditor").status_code == 200
    assert _get(PATHS[rule], "admin").status_code == 403
    assert _get(PATHS[rule], "nova", roles="service").status_code == 403


def test_the_defaults_are_documented():
    from placement_core import policies

    rules = {r.name: r for r in policies.list_rules()}
    for name, path in PATHS.items():
        assert rules[name].check_str == "rule:admin_or_service_api"
        assert rules[name].description
        assert [op["path"] for op in rules[name].operations][0] == path.split("?")[0]
