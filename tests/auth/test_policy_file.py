"""Operator overrides from PLACEMENT_POLICY_FILE."""
import os
import time
from pathlib import Path

import pytest
import yaml
from django.core.exceptions import ImproperlyConfigured

from placement_core import policy
from tests.auth.conftest import OTHER_PROJECT, PERSONAS, PROJECT

@pytest.fixture
def policy_file(tmp_path, settings):
    settings.PLACEMENT_ENFORCE_NEW_DEFAULTS = False
    settings.PLACEMENT_ENFORCE_SCOPE = True
    path = tmp_path / "policy.yaml"

    def write(text):
        path.write_text(text)
        # a new mtime, so that oslo.policy re-reads it
        stamp = time.time() + 10 * write.count
        os.utime(path, (stamp, stamp))
        write.count += 1
        settings.PLACEMENT_POLICY_FILE = str(path)
        return path

    write.count = 1
    return write


def test_anyone_and_no_one(policy_file):
    policy_file('"placement:resource_providers:list": "@"\n"placement:resource_classes:list": "!"\n')
    member = PERSONAS["project_member"][1]
    admin = PERSONAS["admin"][1]
    assert policy.check(member, "placement:resource_providers:list")
    assert not policy.check(admin, "placement:resource_classes:list")
    # rules not in the file keep their defaults
    assert not policy.check(member, "placement:traits:list")
    assert policy.check(admin, "placement:traits:list")


def test_check_string_language(policy_file):
    policy_file(
        "is_reader: 'role:reader and project_id:%(project_id)s'\n"
        "placement:usages: 'rule:is_reader and not role:member'\n"
        "placement:traits:list: 'role:admin or (role:reader and system_scope:all)'\n"
    )
    reader = PERSONAS["project_reader"][1]
    member = PERSONAS["project_member"][1]
    assert policy.check(reader, "placement:usages", {"project_id": PROJECT})
    assert not policy.check(reader, "placement:usages", {"project_id": OTHER_PROJECT})
    assert not policy.check(member, "placement:usages", {"project_id": PROJECT})
    # the rule is still declared for project scope
    assert not policy.check(PERSONAS["system_reader"][1], "placement:traits:list")


def test_overriding_a_base_rule(policy_file):
    policy_file("admin_api: 'role:placement_admin'\n")
    custom = PERSONAS["project_member"][1]
    custom.roles = ["placement_admin"]
    assert policy.check(custom, "placement:resource_providers:create")
    assert not policy.check(PERSONAS["project_admin"][1], "placement:resource_providers:create")


def test_file_is_reread_when_it_changes(policy_file):
    member = PERSONAS["project_member"][1]
    policy_file("placement:traits:list: '@'\n")
    assert policy.check(member, "placement:traits:list")
    policy_file("placement:traits:list: '!'\n")
    assert not policy.check(member, "placement:traits:list")


# The policy file the conformance runner gives the server for upstream's
# OpenPolicyFixture files.
OPEN_POLICY = Path(__file__).resolve().parents[2] / "conformance" / "open-policy.yaml"


def test_open_policy_over_http(api, policy_file):
    assert api.get("/resource_providers", token="user").status_code == 403
    policy_file(OPEN_POLICY.read_text())
    assert api.get("/resource_providers", token="user").status_code == 200


def test_open_policy_names_only_rules_the_service_has(policy_file):
    policy_file(OPEN_POLICY.read_text())
    named = yaml.safe_load(OPEN_POLICY.read_text())
    assert len(named) == 37 and set(named.values()) == {"@"}
    rules = policy.get_enforcer().registered_rules
    assert sorted(name for name in named if name not in rules) == []


def test_missing_file_is_a_configuration_error(settings, tmp_path):
    settings.PLACEMENT_POLICY_FILE = str(tmp_path / "missing.yaml")
    with pytest.raises(ImproperlyConfigured, match="no such file"):
        policy.get_enforcer()
