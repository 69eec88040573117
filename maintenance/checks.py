"""Read-only checks: placement_status, the audit, the catalog comparison."""
from __future__ import annotations

import dataclasses

import os_resource_classes
import os_traits
from django.conf import settings

from allocations.selectors import consumers_incomplete
from operations.audit import invalid_rows
from placement_core import policy
from providers.models import ResourceProvider
from resource_classes.models import ResourceClass, Trait


def catalog_missing() -> dict[str, list[str]]:
    """Standard resource classes and traits not in the database."""
    out = {}
    for model, names in (
        (ResourceClass, list(os_resource_classes.STANDARDS)),
        (Trait, list(os_traits.get_traits())),
    ):
        present = set(model.objects.filter(name__in=names).values_list("name", flat=True))
        out[model.__name__] = sorted(n for n in names if n not in present)
    return out


# --- placement_status ---------------------------------------------------------


@dataclasses.dataclass
class Check:
    name: str
    ok: bool
    details: list[str]
    # What a failed check means for `placement-status upgrade check`:
    # "failure" (exit 2) or "warning" (exit 1).
    severity: str = "failure"


SCHEMA_CHECK = "Database schema is current"
POLICY_CHECK = "Policy file is readable"


def schema_problem() -> str | None:
    """Why the data checks cannot run: no database, or migrations pending."""
    from django.db import DatabaseError, connection
    from django.db.migrations.executor import MigrationExecutor

    try:
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError as exc:
        return f"the database cannot be read: {str(exc).strip().splitlines()[0]}"
    if pending:
        return (f"{len(pending)} migration(s) not applied; run `placement-manage db sync` "
                "(or `manage.py migrate`)")
    return None


def _policy_check() -> Check:
    paths = [settings.PLACEMENT_POLICY_FILE] if settings.PLACEMENT_POLICY_FILE else []
    details = []
    try:
        paths += policy.policy_dir_files(settings.PLACEMENT_POLICY_DIRS)
    except OSError as exc:
        details.append(f"policy directory cannot be read: {exc.strerror}")
    for path in paths:
        try:
            policy.validate_policy_file(path)
        except policy.PolicyFileError as exc:
            details.append(str(exc))
    return Check(POLICY_CHECK, not details, details)


def status_checks() -> list[Check]:
    problem = schema_problem()
    if problem:
        # The data checks would only fail on the missing tables.
        return [Check(SCHEMA_CHECK, False, [problem]), _policy_check()]
    checks = [Check(SCHEMA_CHECK, True, [])]
    missing_root = list(
        ResourceProvider.objects.filter(root__isnull=True).values_list("uuid", flat=True)[:50]
    )
    checks.append(Check("Resource providers have a root provider id", not missing_root,
                        [f"provider {u} has no root provider id" for u in missing_root]))

    incomplete = consumers_incomplete().count()
    checks.append(Check(
        "Consumers have a real project and user", incomplete == 0,
        [f"{incomplete} consumer(s) still carry the incomplete project/user id; "
         "run `manage.py heal_consumers --project-id ... --user-id ...`"] if incomplete else [],
        severity="warning",
    ))

    missing = catalog_missing()
    details = [f"{len(v)} standard {k} name(s) missing (e.g. {', '.join(v[:3])}); "
               "run `manage.py sync_catalog`" for k, v in missing.items() if v]
    checks.append(Check("Standard resource classes and traits are in sync", not details, details,
                        severity="warning"))

    broken = invalid_rows()
    checks.append(Check("Stored rows are valid", not broken, broken))

    checks.append(_policy_check())
    return checks


