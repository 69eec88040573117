"""manage.py take_usage_snapshot: record capacity and usage now (for cron), prune old ones."""
from allocations import snapshots
from maintenance.base import EXIT_OK, MaintenanceCommand


class Command(MaintenanceCommand):
    help = (
        "Record capacity and usage per resource class, cloud-wide and per aggregate, then "
        "drop snapshots older than PLACEMENT_USAGE_SNAPSHOT_RETENTION_DAYS. Does nothing "
        "when the last snapshot is younger than PLACEMENT_USAGE_SNAPSHOT_INTERVAL_SECONDS "
        "(unless --force), so cron may run it often. Exit codes: 0 done, 2 error."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--force", action="store_true", help="Ignore the interval.")

    def run(self, *, force=False, **options):
        written = snapshots.take(force=force)
        pruned = snapshots.prune()
        self.report = {"written": written, "pruned": pruned, "skipped": not written}
        if written:
            self.stdout.write(f"snapshot taken: {written} row(s); pruned {pruned} old row(s)")
        else:
            self.stdout.write(f"skipped: last snapshot is younger than the interval; "
                              f"pruned {pruned} old row(s)")
        return EXIT_OK
