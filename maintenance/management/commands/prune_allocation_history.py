"""manage.py prune_allocation_history: drop history older than the retention."""
from maintenance.base import EXIT_OK, MaintenanceCommand
from operations import history


# Past dates Python can reach (a hundred million days was an OverflowError).
MAX_DAYS = 36500


class Command(MaintenanceCommand):
    help = (
        "Delete allocation history records older than PLACEMENT_ALLOCATION_HISTORY_"
        "RETENTION_DAYS (or --days); 0 keeps everything. Meant for cron. "
        "Exit codes: 0 done, 2 error."
    )
    dry_run_help = "Count the records a prune would delete; delete nothing."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--days", type=int, help="Override the retention (days).")

    def run(self, *, days=None, dry_run=False, **options):
        if days is not None and days < 0:
            raise ValueError("--days must be >= 0")
        if days is not None and days > MAX_DAYS:
            raise ValueError(f"--days must be at most {MAX_DAYS} (a hundred years)")
        deleted = history.prune(days=days, dry_run=dry_run)
        self.report = {"pruned": deleted, "dry_run": dry_run}
        verb = "would prune" if dry_run else "pruned"
        self.stdout.write(f"{verb} {deleted} allocation history record(s)")
        return EXIT_OK
