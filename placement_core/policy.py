"""Policy: may this request's context do this rule?

Enforcement is oslo.policy's, so operators' policy files (YAML or JSON,
upstream rule names, the full check-string language: ``role:``,
``project_id:%(project_id)s``, ``system_scope:all``, ``rule:``, ``@``,
``!``, ``and``/``or``/``not``, parentheses) work unchanged.  The defaults
live in ``placement_core.policies``.

Settings (placement_site/settings.py, from the environment):

* ``PLACEMENT_ENFORCE_NEW_DEFAULTS``: enforce only the secure-RBAC
  defaults; when off, the legacy ``role:admin`` default is also accepted.
* ``PLACEMENT_ENFORCE_SCOPE``: refuse tokens whose scope (system, domain,
  project) the rule is not declared for.
* ``PLACEMENT_POLICY_FILE``: operator overrides, re-read when the file
  changes.

Views call ``authorize(request, "<rule name>")`` before doing any work; a
denial raises ``errors.Forbidden`` (403, "Policy does not allow <rule> to be
performed.").
"""
import copy
import logging
import os
import threading

import yaml

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from oslo_config import cfg
from oslo_policy import _checks, _parser
from oslo_policy import policy as oslo_policy

from placement_core import errors, policies

# Every API rule name, in the order of the defaults table.
RULES = policies.RULE_NAMES

_lock = threading.Lock()
_enforcers = {}


def _settings_key():
    return (
        settings.PLACEMENT_POLICY_FILE or None,
        settings.PLACEMENT_ENFORCE_NEW_DEFAULTS,
        settings.PLACEMENT_ENFORCE_SCOPE,
    )


class PolicyFileError(ImproperlyConfigured):
    """The operator's policy file cannot be used (one line, for commands)."""


def _denies_by_mistake(check_str):
    # oslo.policy turns a check string it cannot parse into deny-all and only
    # logs it; "!" is the one string that means deny-all on purpose.
    if check_str.strip() == "!":
        return False
    logger = logging.getLogger("oslo_policy._parser")
    previous, logger.disabled = logger.disabled, True
    try:
        return isinstance(_parser.parse_rule(check_str), _checks.FalseCheck)
    finally:
        logger.disabled = previous


def validate_policy_file(policy_file):
    """Raise PolicyFileError unless the file is a YAML/JSON mapping of rule
    names to check strings that all parse."""
    try:
        with open(policy_file, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except FileNotFoundError:
        raise PolicyFileError(f"policy file {policy_file}: no such file")
    except OSError as exc:
        raise PolicyFileError(f"policy file {policy_file} cannot be read: {exc.strerror}")
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" (line {where.line + 1})" if where else ""
        raise PolicyFileError(f"policy file {policy_file} is not valid YAML{line}")
    if data is None:
        return
    if not isinstance(data, dict):
        raise PolicyFileError(f"policy file {policy_file} is not a mapping of rule: check string")
    for name, check_str in data.items():
        if not isinstance(check_str, str):
            raise PolicyFileError(
                f"policy file {policy_file}: rule {name!r} must be a check string")
        if _denies_by_mistake(check_str):
            raise PolicyFileError(
                f"policy file {policy_file}: rule {name!r} has a check string that "
                f"does not parse: {check_str!r}")


def _build_enforcer(policy_file, enforce_new_defaults, enforce_scope):
    if policy_file:
        policy_file = os.path.abspath(policy_file)
        validate_policy_file(policy_file)
    conf = cfg.ConfigOpts()
    # A private, empty configuration: nothing is read from /etc or argv.
    conf([], project="placement", default_config_files=[], default_config_dirs=[])
    enforcer = oslo_policy.Enforcer(
        conf,
        # oslo.policy wants a file name even when there is none; a path that
        # cannot exist means "defaults only".
        policy_file=policy_file or os.path.join(os.sep, "nonexistent", "placement-policy.yaml"),
    )
    conf.set_override("policy_dirs", [], group="oslo_policy")
    conf.set_override("enforce_new_defaults", enforce_new_defaults, group="oslo_policy")
    enforcer.suppress_deprecation_warnings = True
    enforcer.suppress_default_change_warnings = True
    rules = policies.list_rules()
    if not enforce_scope:
        # oslo.policy always checks a rule's scope_types; without scope
        # enforcement the rules are registered without them.
        rules = [copy.copy(rule) for rule in rules]
        for rule in rules:
            rule.scope_types = None
    enforcer.register_defaults(rules)
    enforcer.load_rules()
    if not policy_file:
        # Defaults only: nothing to re-read on each check.
        enforcer.use_conf = False
    return enforcer


def get_enforcer():
    """The oslo.policy Enforcer for the current settings (built once per set)."""
    key = _settings_key()
    enforcer = _enforcers.get(key)
    if enforcer is None:
        with _lock:
            enforcer = _enforcers.get(key)
            if enforcer is None:
                enforcer = _build_enforcer(*key)
                _enforcers[key] = enforcer
    return enforcer


def reset():
    """Forget the built enforcers (tests that change settings call this)."""
    with _lock:
        _enforcers.clear()


def credentials(context):
    """The credentials dict check strings are evaluated against."""
    creds = context.policy_credentials()
    creds.setdefault("domain_id", None)
    creds.setdefault("user_domain_id", None)
    creds.setdefault("project_domain_id", None)
    return creds


def check(context, rule, target=None):
    """True when ``context`` passes ``rule`` (no exception)."""
    if target is None:
        target = {"project_id": context.project_id, "user_id": context.user_id}
    try:
        return bool(
            get_enforcer().authorize(rule, target, credentials(context), do_raise=True)
        )
    except (oslo_policy.PolicyNotAuthorized, oslo_policy.InvalidScope):
        return False


def authorize(request, rule, target=None):
    """Raise 403 unless the request's context passes ``rule``.

    ``target`` describes what is acted on (``{"project_id": ...}``); by
    default it is the caller's own project and user.
    """
    if not check(request.placement_context, rule, target):
        raise errors.Forbidden(f"Policy does not allow {rule} to be performed.")
