"""The default rules in both policy modes, as the RBAC gabbits expect."""
import pytest

from placement_core import policies, policy
from tests.auth.conftest import OTHER_PROJECT, PERSONAS, PROJECT

ALLOWED_SECURE = {
    # rule -> personas allowed with PLACEMENT_ENFORCE_NEW_DEFAULTS=true
    "placement:resource_providers:list": {"admin", "service", "project_admin"},
    "placement:resource_providers:create": {"admin", "service", "project_admin"},
    "placement:resource_classes:update": {"admin", "service", "project_admin"},
    "placement:resource_providers:inventories:update": {"admin", "service", "project_admin"},
    "placement:resource_providers:aggregates:list": {"admin", "service", "project_admin"},
    "placement:traits:delete": {"admin", "service", "project_admin"},
    "placement:allocations:manage": {"admin", "service", "project_admin"},
    "placement:allocations:list": {"admin", "service", "project_admin"},
    "placement:allocation_candidates:list": {"admin", "service", "project_admin"},
    "placement:reshaper:reshape": {"service"},
    "placement:metrics": {"admin", "service", "project_admin"},
    "placement:explain": {"admin", "service", "project_admin"},
    "placement:history:list": {"admin", "service", "project_admin"},
    # Planning answers name every provider and other projects' callers.
    "placement:planning:drain": {"admin", "project_admin"},
    "placement:planning:forecast": {"admin", "project_admin"},
    "placement:planning:failures": {"admin", "project_admin"},
}
ALLOWED_LEGACY = {
    rule: allowed | {"admin", "project_admin"} for rule, allowed in ALLOWED_SECURE.items()
}


def test_every_upstream_rule_name_is_registered():
    # Upstream's 33, plus this service's placement:metrics, placement:explain,
    # placement:history:list and three placement:planning rules.
    assert len(policy.RULES) == 39
    assert len(set(policy.RULES)) == 39
    names = {rule.name for rule in policies.list_rules()}
    assert names == set(policy.RULES) | {
        "admin_api", "service_api", "admin_or_service_api", "project_reader_api",
        "admin_or_project_reader_or_service_api",
    }
    enforcer = policy.get_enforcer()
    assert set(policy.RULES) <= set(enforcer.rules)


@pytest.mark.parametrize("rule", sorted(ALLOWED_SECURE))
@pytest.mark.parametrize("persona", sorted(PERSONAS))
def test_secure_rbac_defaults(secure, rule, persona):
    context = PERSONAS[persona][1]
    assert policy.check(context, rule) == (persona in ALLOWED_SECURE[rule])


@pytest.mark.parametrize("rule", sorted(ALLOWED_LEGACY))
@pytest.mark.parametrize("persona", sorted(PERSONAS))
def test_legacy_defaults(legacy, rule, persona):
    context = PERSONAS[persona][1]
    assert policy.check(context, rule) == (persona in ALLOWED_LEGACY[rule])


@pytest.mark.parametrize("mode", ["legacy", "secure"])
def test_total_usages_reader_of_the_target_project_only(request, mode):
    request.getfixturevalue(mode)
    reader = PERSONAS["project_reader"][1]
    assert policy.check(reader, "placement:usages", {"project_id": PROJECT})
    assert not policy.check(reader, "placement:usages", {"project_id": OTHER_PROJECT})
    member = PERSONAS["project_member"][1]
    assert not policy.check(member, "placement:usages", {"project_id": OTHER_PROJECT})
    # Without a target the caller's own project is the target.
    assert policy.check(reader, "placement:usages")
    assert not policy.check(reader, "placement:resource_providers:usages")


def test_scope_not_enforced_lets_system_admin_in(settings):
    settings.PLACEMENT_ENFORCE_NEW_DEFAULTS = True
    settings.PLACEMENT_ENFORCE_SCOPE = False
    system_admin = PERSONAS["system_admin"][1]
    assert policy.check(system_admin, "placement:resource_providers:list")
    settings.PLACEMENT_ENFORCE_SCOPE = True
    assert not policy.check(system_admin, "placement:resource_providers:list")


def test_service_role_in_legacy_mode_is_allowed_too(legacy):
    # legacy = new default OR role:admin, as oslo.policy combines them
    assert policy.check(PERSONAS["service"][1], "placement:resource_providers:list")


def test_unknown_rule_is_a_programming_error():
    from oslo_policy.policy import PolicyNotRegistered

    with pytest.raises(PolicyNotRegistered):
        policy.check(PERSONAS["admin"][1], "placement:nope")


@pytest.mark.parametrize(
    "persona,mode,status",
    [
        ("admin", "secure", 200),
        ("service", "secure", 200),
        ("project_admin", "secure", 200),
        ("project_member", "secure", 403),
        ("project_reader", "secure", 403),
        ("system_admin", "secure", 403),
        ("system_reader", "secure", 403),
        ("service", "legacy", 200),
        ("project_admin", "legacy", 200),
        ("project_member", "legacy", 403),
        ("system_admin", "legacy", 403),
    ],
)
def test_over_http(request, api, persona, mode, status):
    request.getfixturevalue(mode)
    headers = PERSONAS[persona][0]
    response = api.get("/resource_providers", token="user", headers=headers)
    assert response.status_code == status, response.content
