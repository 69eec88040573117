"""manage.py take_usage_snapshot: record capacity and usage now (for cron), prune old ones."""
from maintenance.base import EXIT_OK, MaintenanceCommand
from operations import snapshots
from placement_core.texttable import table
from placement_core.units import used_of
from providers.references import aggregate_members, aggregate_name


class Command(MaintenanceCommand):
    help = (
        "Record capacity and usage per resource class, cloud-wide and per aggregate, then "
        "drop snapshots older than PLACEMENT_USAGE_SNAPSHOT_RETENTION_DAYS. Does nothing "
        "when the last snapshot is younger than PLACEMENT_USAGE_SNAPSHOT_INTERVAL_SECONDS "
        "(unless --force), so cron may run it often. Exit codes: 0 done, 2 error."
    )
    dry_run_help = "Print the rows a snapshot would write and the rows a prune would drop; " \
        "change nothing."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--force", action="store_true", help="Ignore the interval.")

    def run(self, *, force=False, dry_run=False, **options):
        if dry_run:
            return self._dry_run(force)
        written = snapshots.take(force=force)
        pruned = snapshots.prune()
        self.report = {"written": written, "pruned": pruned, "skipped": not written,
                       "dry_run": False}
        if written:
            self.stdout.write(f"snapshot taken: {written} row(s); pruned {pruned} old row(s)")
        else:
            self.stdout.write(f"skipped: last snapshot is younger than the interval; "
                              f"pruned {pruned} old row(s)")
        return EXIT_OK

    def _dry_run(self, force):
        rows = snapshots.plan(force=force)
        pruned = snapshots.prune(dry_run=True)
        self.report = {
            "written": len(rows), "pruned": pruned, "skipped": not rows, "dry_run": True,
            "rows": [{"aggregate_uuid": r.aggregate_uuid, "resource_class": r.resource_class,
                      "capacity": r.capacity, "used": r.used} for r in rows],
        }
        if rows:
            self.stdout.write(f"would write {len(rows)} row(s); would prune {pruned} old row(s)")
            members = aggregate_members({r.aggregate_uuid for r in rows if r.aggregate_uuid})
            for line in table(["scope", "class", "used"], [
                    [aggregate_name(r.aggregate_uuid, members) if r.aggregate_uuid else "cloud",
                     r.resource_class, used_of(r.used, r.capacity, r.resource_class)]
                    for r in rows], indent="  "):
                self.stdout.write(line)
        else:
            self.stdout.write(f"would skip: last snapshot is younger than the interval; "
                              f"would prune {pruned} old row(s)")
        return EXIT_OK
