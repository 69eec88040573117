"""Policy: may this request's context do this rule?

Rule names are upstream Placement's.  This first version knows the legacy
defaults (every rule needs the admin role) and honours an operator policy
file whose rules are ``"@"`` (anyone) or ``"!"`` (no one) or
``"role:<name>"``; the full check-string language arrives with the policy
work (issue 6).
"""
import functools

import yaml
from django.conf import settings

from placement_site import errors

RULES = (
    "placement:resource_providers:list",
    "placement:resource_providers:create",
    "placement:resource_providers:show",
    "placement:resource_providers:update",
    "placement:resource_providers:delete",
    "placement:resource_classes:list",
    "placement:resource_classes:create",
    "placement:resource_classes:show",
    "placement:resource_classes:update",
    "placement:resource_classes:delete",
    "placement:resource_providers:inventories:list",
    "placement:resource_providers:inventories:create",
    "placement:resource_providers:inventories:show",
    "placement:resource_providers:inventories:update",
    "placement:resource_providers:inventories:delete",
    "placement:resource_providers:aggregates:list",
    "placement:resource_providers:aggregates:update",
    "placement:resource_providers:usages",
    "placement:usages",
    "placement:traits:list",
    "placement:traits:show",
    "placement:traits:update",
    "placement:traits:delete",
    "placement:resource_providers:traits:list",
    "placement:resource_providers:traits:update",
    "placement:resource_providers:traits:delete",
    "placement:allocations:manage",
    "placement:allocations:list",
    "placement:allocations:update",
    "placement:allocations:delete",
    "placement:resource_providers:allocations:list",
    "placement:allocation_candidates:list",
    "placement:reshaper:reshape",
)


@functools.lru_cache(maxsize=4)
def _load_file(path):
    if not path:
        return {}
    with open(path, encoding="utf-8") as handle:
        data = yaml.safe_load(handle) or {}
    return {str(k): str(v) for k, v in data.items()}


def _check(check, context):
    check = check.strip()
    if check in ("@", ""):
        return True
    if check == "!":
        return False
    if check.startswith("role:"):
        return check[5:] in context.roles
    return context.is_admin


def authorize(request, rule, target=None):
    """Raise 403 unless the request's context passes ``rule``."""
    context = request.placement_context
    overrides = _load_file(settings.PLACEMENT_POLICY_FILE)
    check = overrides.get(rule)
    allowed = _check(check, context) if check is not None else context.is_admin
    if not allowed:
        raise errors.Forbidden(f"Policy does not allow {rule} to be performed.")
