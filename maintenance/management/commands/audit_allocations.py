"""manage.py audit_allocations: find (and, where safe, fix) suspicious allocation data."""
from datetime import timedelta

from allocations.consumer_services import consumers_delete_empty
from allocations.selectors import consumers_empty, consumers_incomplete
from maintenance.base import EXIT_OK, EXIT_PROBLEMS, MaintenanceCommand
from operations import audit
from operations.audit import invalid_rows, over_capacity
from placement_core.texttable import table, when
from placement_core.units import human_amount
from providers.references import provider_names


# Past dates Python can reach (a hundred billion hours was an OverflowError).
MAX_AGE_HOURS = 876000
CHECKS = 8  # the findings below, for the progress line


class Command(MaintenanceCommand):
    help = (
        "Report consumers that hold no allocations; providers whose allocations exceed their "
        "inventory (after a total/reserved/allocation-ratio change); allocations of a class "
        "their provider has no inventory of; consumers whose allocations span two or more "
        "provider trees (evacuation or migration residue); MIGRATION consumers older than "
        "--migration-age-hours; disabled hosts (COMPUTE_STATUS_DISABLED on a tree's root) "
        "still holding consumers; "
        "consumers with the incomplete project/user id. --fix does only what is safe: deletes "
        "the empty consumers and drops the allocations that have no inventory behind them "
        "(each consumer rewritten through the allocation service, generation-checked and "
        "recorded in the allocation history). Exit codes: 0 nothing found (or all fixed), "
        "1 problems remain, 2 error."
    )
    dry_run_help = "With --fix: only report what would be changed."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--fix", action="store_true",
                            help="Delete empty consumers; drop allocations without inventory.")
        parser.add_argument("--limit", type=int, default=50,
                            help="Rows listed per finding in the text output (default 50).")
        parser.add_argument("--migration-age-hours", type=float, default=24.0,
                            help="A MIGRATION consumer older than this is reported (default 24).")

    def run(self, *, fix=False, dry_run=False, limit=50, migration_age_hours=24.0, **options):
        if limit < 0:
            raise ValueError("--limit must be >= 0")
        if not 0 <= migration_age_hours <= MAX_AGE_HOURS:  # also refuses nan
            raise ValueError(
                f"--migration-age-hours must be >= 0 and at most {MAX_AGE_HOURS} (a hundred years)")
        # "fixes" has one shape: what --fix did, or with --dry-run what it would
        # do (the counts it would report, no problems since nothing was tried).
        report = {"findings": {}, "fixes": {}, "remaining": 0, "dry_run": bool(dry_run)}
        self.report = report
        remaining = 0

        summary, details, fixes = [], [], []

        def finding(key, title, rows, columns=None, cells=None, fixable=False):
            """A finding: a row of the summary table, and when it has rows a
            section "title: N" with them (a table when ``columns``)."""
            nonlocal remaining
            report["findings"][key] = rows
            summary.append([title, len(rows)])
            if rows:
                details.append("")
                details.append(f"{title}: {len(rows)}")
                if columns:
                    details.extend(table(columns, [cells(r) for r in rows[:limit]],
                                         indent="  ", max_cell=60))
                else:
                    details.extend(f"  {r}" for r in rows[:limit])
                if len(rows) > limit:
                    details.append(f"  ... {len(rows) - limit} more (--limit, or --json)")
            if not fixable:
                remaining += len(rows)
            self.progress(len(summary), CHECKS, title)

        self.progress(0, CHECKS, "consumers without allocations")
        empty = list(consumers_empty().values_list("uuid", flat=True))
        finding("consumers_without_allocations", "consumers without allocations", empty,
                fixable=True)
        if empty and fix and not dry_run:
            deleted = consumers_delete_empty(uuids=empty)
            fixes.append(f"deleted {deleted} empty consumer(s)")
            report["fixes"]["consumers_deleted"] = deleted
            remaining += len(empty) - deleted
        else:
            if empty and fix:
                fixes.append(f"would delete {len(empty)} empty consumer(s)")
                report["fixes"]["consumers_deleted"] = len(empty)
            remaining += len(empty)

        finding("invalid_rows", "stored rows the API would refuse", invalid_rows())

        over = [p for p in over_capacity() if p["has_inventory"]]
        orphans = audit.allocations_without_inventory()
        names = provider_names([p["provider"] for p in over] + [r["provider"] for r in orphans])
        finding("over_capacity", "provider/class pairs over capacity",
                [{k: p[k] for k in ("provider", "resource_class", "used", "capacity")}
                 for p in over],
                ["provider", "class", "used", "capacity"],
                lambda p: [names.get(p["provider"], p["provider"]), p["resource_class"],
                           human_amount(p["used"], p["resource_class"]),
                           human_amount(p["capacity"], p["resource_class"])])

        finding("allocations_without_inventory", "allocations without inventory", orphans,
                ["consumer", "provider", "class", "used"],
                lambda r: [r["consumer"], names.get(r["provider"], r["provider"]),
                           r["resource_class"], human_amount(r["used"], r["resource_class"])],
                fixable=True)
        consumers = len({r["consumer"] for r in orphans})
        if orphans and fix and not dry_run:
            fixed, problems = audit.drop_allocations_without_inventory(orphans)
            fixes.append(f"dropped allocations without inventory of {fixed} consumer(s)")
            for problem in problems:
                fixes.append(f"  could not fix {problem}")
            report["fixes"]["consumers_rewritten"] = fixed
            report["fixes"]["problems"] = problems
            remaining += len(problems)
        else:
            if orphans and fix:
                fixes.append(f"would drop allocations without inventory of {consumers} "
                             "consumer(s)")
                report["fixes"]["consumers_rewritten"] = consumers
                report["fixes"]["problems"] = []
            remaining += len(orphans)

        finding("consumers_spanning_trees", "consumers spanning more than one tree",
                audit.consumers_spanning_trees(), ["consumer", "type", "trees"],
                lambda r: [r["consumer"], r["consumer_type"] or "-",
                           ", ".join(x["name"] for x in r["roots"])])
        finding("stale_migrations",
                f"MIGRATION consumers older than {migration_age_hours:g}h",
                audit.stale_migrations(older_than=timedelta(hours=migration_age_hours)),
                ["consumer", "created (UTC)"], lambda r: [r["consumer"], when(r["created_at"])])
        finding("disabled_providers_with_consumers",
                "COMPUTE_STATUS_DISABLED providers holding consumers",
                audit.disabled_providers_with_consumers(), ["provider", "consumers"],
                lambda r: [r["name"], r["consumers"]])

        incomplete = list(consumers_incomplete().values_list("uuid", flat=True))
        finding("incomplete_consumers", "incomplete consumers (run heal_consumers)",
                incomplete)
        report["remaining"] = remaining
        for line in table(["finding", "count"], summary, right=(1,), max_cell=60) + details \
                + fixes:
            self.stdout.write(line)
        return EXIT_PROBLEMS if remaining else EXIT_OK
