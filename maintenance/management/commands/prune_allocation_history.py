"""manage.py prune_allocation_history: drop history older than the retention."""
from allocations import history
from maintenance.base import EXIT_OK, MaintenanceCommand


# Past dates Python can reach (a hundred million days was an OverflowError).
MAX_DAYS = 36500


class Command(MaintenanceCommand):
    help = (
        "Delete allocation history records older than PLACEMENT_ALLOCATION_HISTORY_"
        "RETENTION_DAYS (or --days); 0 keeps everything. Meant for cron. "
        "Exit codes: 0 done, 2 error."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--days", type=int, help="Override the retention (days).")

    def run(self, *, days=None, **options):
        if days is not None and days < 0:
            raise ValueError("--days must be >= 0")
        if days is not None and days > MAX_DAYS:
            raise ValueError(f"--days must be at most {MAX_DAYS} (a hundred years)")
        deleted = history.prune(days=days)
        self.report = {"pruned": deleted}
        self.stdout.write(f"pruned {deleted} allocation history record(s)")
        return EXIT_OK
