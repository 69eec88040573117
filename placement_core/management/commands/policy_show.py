"""``manage.py policy_show``: the effective policy.

Without options: every rule as YAML, ``name: "check string"``, as enforced
with the current settings (PLACEMENT_ENFORCE_NEW_DEFAULTS,
PLACEMENT_ENFORCE_SCOPE, PLACEMENT_POLICY_FILE), each after a comment with
its description, operations, scope and where the check string comes from.
That output is itself a valid policy file.

``--sample``: the defaults only, commented out (a starting policy file).

``--roles admin,reader [--project-id P] [--user-id U] [--system-scope all]
[--target-project-id T]``: which rules such a caller passes (like
oslopolicy-checker).

``--json``: the same as one JSON document: ``{"settings", "rules": [{"name",
"check_str", "description", "operations", "scope_types", "from"}]}``, or in
check mode ``{"caller", "checks": {rule: true|false}}``.
"""
import json
import os
import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from placement_core import policies, policy
from placement_core.context import RequestContext


def _quote(text):
    return json.dumps(str(text))


class Command(BaseCommand):
    help = "Print the effective policy rules, a sample policy file, or check a caller against them."

    def add_arguments(self, parser):
        parser.add_argument("--sample", action="store_true",
                            help="print the default rules, commented out")
        parser.add_argument("--roles", help="check mode: comma list of the caller's roles")
        parser.add_argument("--project-id", default="project")
        parser.add_argument("--user-id", default="user")
        parser.add_argument("--system-scope", default=None,
                            help="'all' for a system-scoped caller")
        parser.add_argument("--target-project-id", default=None,
                            help="project the request is about (default: the caller's)")
        parser.add_argument("--json", dest="as_json", action="store_true",
                            help="print the result as one JSON document")

    def handle(self, *args, **options):
        try:
            if options["roles"] is not None:
                return self._check(options)
            return self._show(options)
        except policy.PolicyFileError as exc:
            raise CommandError(str(exc), returncode=2)
        except BrokenPipeError:
            # The reader stopped (`policy_show | head`): not an error.  Point
            # stdout at /dev/null so the interpreter's final flush is quiet.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return None

    def _rules(self, options):
        """Per rule: its effective (or with --sample default) check string and
        where it comes from."""
        enforcer = policy.get_enforcer()
        for rule in policies.list_rules():
            if options["sample"]:
                source, check = "default", rule.check_str
            else:
                if rule.name in enforcer.file_rules:
                    source = "policy file"
                elif rule.deprecated_rule and not settings.PLACEMENT_ENFORCE_NEW_DEFAULTS:
                    source = (f"default {rule.check_str!r} or legacy "
                              f"{rule.deprecated_rule.check_str!r}")
                else:
                    source = "default"
                check = str(enforcer.rules[rule.name])
            yield rule, check, source

    def _settings(self):
        return {"PLACEMENT_ENFORCE_NEW_DEFAULTS": settings.PLACEMENT_ENFORCE_NEW_DEFAULTS,
                "PLACEMENT_ENFORCE_SCOPE": settings.PLACEMENT_ENFORCE_SCOPE,
                "PLACEMENT_POLICY_FILE": settings.PLACEMENT_POLICY_FILE}

    def _show(self, options):
        if options["as_json"]:
            self.stdout.write(json.dumps({
                "settings": self._settings(),
                "rules": [{"name": rule.name, "check_str": check,
                           "description": rule.description,
                           "operations": list(getattr(rule, "operations", None) or []),
                           "scope_types": list(rule.scope_types or []), "from": source}
                          for rule, check, source in self._rules(options)],
            }, indent=2))
            return
        out = self.stdout
        out.write("# Placement policy")
        out.write(f"# PLACEMENT_ENFORCE_NEW_DEFAULTS={settings.PLACEMENT_ENFORCE_NEW_DEFAULTS}"
                  f" PLACEMENT_ENFORCE_SCOPE={settings.PLACEMENT_ENFORCE_SCOPE}"
                  f" PLACEMENT_POLICY_FILE={settings.PLACEMENT_POLICY_FILE or '(none)'}")
        out.write("")
        for rule, check, source in self._rules(options):
            out.write(f"# {rule.description}")
            for operation in getattr(rule, "operations", None) or []:
                out.write(f"# {operation['method']:<7} {operation['path']}")
            if rule.scope_types:
                out.write(f"# scope: {', '.join(rule.scope_types)}")
            if options["sample"]:
                out.write(f"#{_quote(rule.name)}: {_quote(check)}")
            else:
                out.write(f"# from: {source}")
                out.write(f"{_quote(rule.name)}: {_quote(check)}")
            out.write("")

    def _check(self, options):
        context = RequestContext(
            user_id=options["user_id"],
            project_id=options["project_id"],
            roles=[r.strip() for r in options["roles"].split(",") if r.strip()],
            system_scope=options["system_scope"],
        )
        target = {
            "project_id": options["target_project_id"] or context.project_id,
            "user_id": context.user_id,
        }
        checks = {name: bool(policy.check(context, name, target)) for name in policy.RULES}
        if options["as_json"]:
            self.stdout.write(json.dumps({
                "caller": {"user_id": context.user_id, "project_id": context.project_id,
                           "roles": context.roles, "system_scope": context.system_scope,
                           "target_project_id": target["project_id"]},
                "checks": checks}, indent=2))
            return
        for name, passed in checks.items():
            self.stdout.write(f"{'passed' if passed else 'failed'}: {name}")
