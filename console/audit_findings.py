"""The audit page's reads: what ``manage.py audit_allocations`` finds, from
the same functions (``operations.audit``), and which findings the page
can fix (through ``console.selectors``)."""
from __future__ import annotations

import dataclasses
from datetime import timedelta

from allocations.selectors import consumers_empty, consumers_incomplete
from operations import audit


@dataclasses.dataclass
class Finding:
    """One check of the audit: its rows (as ``operations.audit`` gives them)
    and whether the console can fix it."""

    key: str
    title: str
    rows: list
    fix: str = ""  # what the fix does, "" when a person must decide


FIXES = {
    "consumers_without_allocations": "Delete these consumers (each re-checked under its lock: "
                                     "one that got allocations meanwhile stays).",
    "allocations_without_inventory": "Rewrite each consumer without these allocations (they "
                                     "reserve nothing; generation-checked, recorded in the "
                                     "allocation history).",
}


def audit_findings(*, migration_age_hours: float) -> list[Finding]:
    """What ``manage.py audit_allocations`` reports, in its order."""
    empty = list(consumers_empty().order_by("uuid").values_list("uuid", flat=True))
    over = [{k: p[k] for k in ("provider", "resource_class", "used", "capacity")}
            for p in audit.over_capacity() if p["has_inventory"]]
    return [
        Finding("consumers_without_allocations", "Consumers without allocations", empty,
                FIXES["consumers_without_allocations"]),
        Finding("invalid_rows", "Stored rows the API would refuse", audit.invalid_rows()),
        Finding("over_capacity", "Provider/class pairs over capacity", over),
        Finding("allocations_without_inventory", "Allocations without inventory",
                audit.allocations_without_inventory(), FIXES["allocations_without_inventory"]),
        Finding("consumers_spanning_trees", "Consumers spanning more than one tree",
                audit.consumers_spanning_trees()),
        Finding("stale_migrations", f"MIGRATION consumers older than {migration_age_hours:g} h",
                audit.stale_migrations(older_than=timedelta(hours=migration_age_hours))),
        Finding("disabled_providers_with_consumers",
                "COMPUTE_STATUS_DISABLED providers holding consumers",
                audit.disabled_providers_with_consumers()),
        Finding("incomplete_consumers", "Incomplete consumers (run manage.py heal_consumers)",
                list(consumers_incomplete().order_by("uuid").values_list("uuid", flat=True))),
    ]
