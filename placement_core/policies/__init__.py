"""Default policy rules, by upstream Placement rule name.

Two generations of defaults live side by side, the way oslo.policy models a
change of defaults:

* the *secure RBAC* defaults (what ``PLACEMENT_ENFORCE_NEW_DEFAULTS=true``
  enforces): the ``admin`` role, or the ``service`` role that other
  OpenStack services' users carry, with project-scoped tokens; a project
  ``reader`` may only read its own project's total usages; ``POST
  /reshaper`` is for services only;
* the *legacy* default (``rule:admin_api``, i.e. ``role:admin``), kept as
  each rule's deprecated check.  With new defaults off (the default),
  oslo.policy grants a request when either the new or the legacy check
  passes.

Every API rule is declared for project scope: with
``PLACEMENT_ENFORCE_SCOPE=true`` a system-scoped token is refused.

An operator's policy file replaces any of these check strings (base rules
included) by name.
"""
from oslo_policy import policy

DEPRECATED_SINCE = "W"
DEPRECATED_REASON = (
    "Placement's defaults now tell administrators, services and project "
    "readers apart and are project scoped; the old rule:admin_api default "
    "is honoured only while PLACEMENT_ENFORCE_NEW_DEFAULTS is off."
)

# --- base rules ------------------------------------------------------------
ADMIN_API = "admin_api"
SERVICE_API = "service_api"
ADMIN_OR_SERVICE_API = "admin_or_service_api"
PROJECT_READER_API = "project_reader_api"
ADMIN_OR_PROJECT_READER_OR_SERVICE_API = "admin_or_project_reader_or_service_api"

LEGACY_CHECK = f"rule:{ADMIN_API}"
ADMIN_OR_SERVICE = f"rule:{ADMIN_OR_SERVICE_API}"
ADMIN = f"rule:{ADMIN_API}"
SERVICE = f"rule:{SERVICE_API}"
ADMIN_OR_PROJECT_READER_OR_SERVICE = f"rule:{ADMIN_OR_PROJECT_READER_OR_SERVICE_API}"

BASE_RULES = [
    policy.RuleDefault(
        ADMIN_API,
        "role:admin",
        description="Base rule: a cloud administrator.",
    ),
    policy.RuleDefault(
        SERVICE_API,
        "role:service",
        description="Base rule: another OpenStack service's user "
        "(the service role).",
    ),
    policy.RuleDefault(
        ADMIN_OR_SERVICE_API,
        f"rule:{ADMIN_API} or rule:{SERVICE_API}",
        description="Base rule: an administrator or a service.",
    ),
    policy.RuleDefault(
        PROJECT_READER_API,
        "role:reader and project_id:%(project_id)s",
        description="Base rule: a reader of the project the request is about.",
    ),
    policy.RuleDefault(
        ADMIN_OR_PROJECT_READER_OR_SERVICE_API,
        f"rule:{ADMIN_API} or rule:{PROJECT_READER_API} or rule:{SERVICE_API}",
        description="Base rule: an administrator, a service, or a reader "
        "of the project the request is about.",
    ),
]


# --- API rules: (name, new default, description, [(method, path), ...]) -----
_RP = "/resource_providers/{uuid}"

API_RULE_TABLE = [
    # resource providers
    ("placement:resource_providers:list", ADMIN_OR_SERVICE,
     "List resource providers.", [("GET", "/resource_providers")]),
    ("placement:resource_providers:create", ADMIN_OR_SERVICE,
     "Create a resource provider.", [("POST", "/resource_providers")]),
    ("placement:resource_providers:show", ADMIN_OR_SERVICE,
     "Show one resource provider.", [("GET", _RP)]),
    ("placement:resource_providers:update", ADMIN_OR_SERVICE,
     "Update a resource provider.", [("PUT", _RP)]),
    ("placement:resource_providers:delete", ADMIN_OR_SERVICE,
     "Delete a resource provider.", [("DELETE", _RP)]),
    # resource classes
    ("placement:resource_classes:list", ADMIN_OR_SERVICE,
     "List resource classes.", [("GET", "/resource_classes")]),
    ("placement:resource_classes:create", ADMIN_OR_SERVICE,
     "Create a custom resource class.", [("POST", "/resource_classes")]),
    ("placement:resource_classes:show", ADMIN_OR_SERVICE,
     "Show one resource class.", [("GET", "/resource_classes/{name}")]),
    ("placement:resource_classes:update", ADMIN_OR_SERVICE,
     "Create or rename a custom resource class.", [("PUT", "/resource_classes/{name}")]),
    ("placement:resource_classes:delete", ADMIN_OR_SERVICE,
     "Delete a custom resource class.", [("DELETE", "/resource_classes/{name}")]),
    # inventories
    ("placement:resource_providers:inventories:list", ADMIN_OR_SERVICE,
     "List a provider's inventories.", [("GET", f"{_RP}/inventories")]),
    ("placement:resource_providers:inventories:create", ADMIN_OR_SERVICE,
     "Add one inventory to a provider.", [("POST", f"{_RP}/inventories")]),
    ("placement:resource_providers:inventories:show", ADMIN_OR_SERVICE,
     "Show one inventory of a provider.",
     [("GET", f"{_RP}/inventories/{{resource_class}}")]),
    ("placement:resource_providers:inventories:update", ADMIN_OR_SERVICE,
     "Replace a provider's inventories, or update one of them.",
     [("PUT", f"{_RP}/inventories"), ("PUT", f"{_RP}/inventories/{{resource_class}}")]),
    ("placement:resource_providers:inventories:delete", ADMIN_OR_SERVICE,
     "Delete a provider's inventories, or one of them.",
     [("DELETE", f"{_RP}/inventories"), ("DELETE", f"{_RP}/inventories/{{resource_class}}")]),
    # aggregates
    ("placement:resource_providers:aggregates:list", ADMIN_OR_SERVICE,
     "List the aggregates a provider is in.", [("GET", f"{_RP}/aggregates")]),
    ("placement:resource_providers:aggregates:update", ADMIN_OR_SERVICE,
     "Set the aggregates a provider is in.", [("PUT", f"{_RP}/aggregates")]),
    # usages
    ("placement:resource_providers:usages", ADMIN_OR_SERVICE,
     "Show a provider's usages.", [("GET", f"{_RP}/usages")]),
    ("placement:usages", ADMIN_OR_PROJECT_READER_OR_SERVICE,
     "Show a project's (and optionally a user's) total usages; the target "
     "is the project asked about.", [("GET", "/usages")]),
    # traits
    ("placement:traits:list", ADMIN_OR_SERVICE,
     "List traits.", [("GET", "/traits")]),
    ("placement:traits:show", ADMIN_OR_SERVICE,
     "Check that a trait exists.", [("GET", "/traits/{name}")]),
    ("placement:traits:update", ADMIN_OR_SERVICE,
     "Create a custom trait.", [("PUT", "/traits/{name}")]),
    ("placement:traits:delete", ADMIN_OR_SERVICE,
     "Delete a custom trait.", [("DELETE", "/traits/{name}")]),
    ("placement:resource_providers:traits:list", ADMIN_OR_SERVICE,
     "List a provider's traits.", [("GET", f"{_RP}/traits")]),
    ("placement:resource_providers:traits:update", ADMIN_OR_SERVICE,
     "Set a provider's traits.", [("PUT", f"{_RP}/traits")]),
    ("placement:resource_providers:traits:delete", ADMIN_OR_SERVICE,
     "Remove all of a provider's traits.", [("DELETE", f"{_RP}/traits")]),
    # allocations
    ("placement:allocations:manage", ADMIN_OR_SERVICE,
     "Write allocations for several consumers at once.", [("POST", "/allocations")]),
    ("placement:allocations:list", ADMIN_OR_SERVICE,
     "Show a consumer's allocations.", [("GET", "/allocations/{consumer_uuid}")]),
    ("placement:allocations:update", ADMIN_OR_SERVICE,
     "Replace a consumer's allocations.", [("PUT", "/allocations/{consumer_uuid}")]),
    ("placement:allocations:delete", ADMIN_OR_SERVICE,
     "Delete a consumer's allocations.", [("DELETE", "/allocations/{consumer_uuid}")]),
    ("placement:resource_providers:allocations:list", ADMIN_OR_SERVICE,
     "Show the allocations against a provider.", [("GET", f"{_RP}/allocations")]),
    # allocation candidates
    ("placement:allocation_candidates:list", ADMIN_OR_SERVICE,
     "Search for allocation candidates.", [("GET", "/allocation_candidates")]),
    # reshaper
    ("placement:reshaper:reshape", SERVICE,
     "Move inventories and allocations between providers atomically.",
     [("POST", "/reshaper")]),
    # not upstream: this service's Prometheus endpoint
    ("placement:metrics", ADMIN_OR_SERVICE,
     "Scrape request and capacity metrics.", [("GET", "/metrics")]),
    # not upstream: why a candidates query finds what it finds (names every
    # provider with its usage)
    ("placement:explain", ADMIN_OR_SERVICE,
     "Explain an allocation-candidates query.", [("GET", "/explain")]),
    # not upstream: the allocation history (names every caller's user and
    # project)
    ("placement:history:list", ADMIN_OR_SERVICE,
     "List the recorded allocation changes of a consumer or a provider.",
     [("GET", "/history/consumers/{uuid}"), ("GET", "/history/providers/{uuid}")]),
    # not upstream: capacity planning. Administrators only by default: the
    # answers name every provider, and failures other projects' callers.
    ("placement:planning:drain", ADMIN,
     "Simulate draining providers, trees or an aggregate (writes nothing).",
     [("GET", "/planning/drain")]),
    ("placement:planning:forecast", ADMIN,
     "Read the usage forecast and the stranded capacity.", [("GET", "/planning/forecast")]),
    ("placement:planning:failures", ADMIN,
     "Read the recorded scheduling failures.", [("GET", "/planning/failures")]),
]

API_RULES = [
    policy.DocumentedRuleDefault(
        name=name,
        check_str=check,
        description=description,
        operations=[{"method": method, "path": path} for method, path in operations],
        scope_types=["project"],
        deprecated_rule=policy.DeprecatedRule(
            name=name,
            check_str=LEGACY_CHECK,
            deprecated_reason=DEPRECATED_REASON,
            deprecated_since=DEPRECATED_SINCE,
        ),
    )
    for name, check, description, operations in API_RULE_TABLE
]

RULE_NAMES = tuple(name for name, _check, _description, _operations in API_RULE_TABLE)


def list_rules():
    """Every default rule, base rules first (also the oslo.policy entry point shape)."""
    return BASE_RULES + API_RULES
