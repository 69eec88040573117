"""manage.py audit_allocations: find (and optionally fix) suspicious allocation data."""
from allocations.selectors import consumers_empty, consumers_incomplete
from allocations.services import consumers_delete_empty
from maintenance.base import EXIT_OK, EXIT_PROBLEMS, MaintenanceCommand
from maintenance.checks import over_capacity


class Command(MaintenanceCommand):
    help = (
        "Report consumers that hold no allocations, providers whose allocations exceed their "
        "inventory (after a total/reserved/allocation-ratio change or an inventory removal), "
        "and consumers with the incomplete project/user id. --fix deletes the empty consumers "
        "(the only fix that is always safe). Exit codes: 0 nothing found (or all fixed), "
        "1 problems remain, 2 error."
    )
    dry_run_help = "With --fix: only report what would be deleted."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--fix", action="store_true", help="Delete consumers with no allocations.")
        parser.add_argument("--limit", type=int, default=50, help="Rows listed per finding (default 50).")

    def run(self, *, fix=False, dry_run=False, limit=50, **options):
        remaining = 0
        empty = list(consumers_empty().values_list("uuid", flat=True))
        self.stdout.write(f"consumers without allocations: {len(empty)}")
        for u in empty[:limit]:
            self.stdout.write(f"  {u}")
        if empty and fix:
            if dry_run:
                self.stdout.write(f"would delete {len(empty)} empty consumer(s)")
                remaining += len(empty)
            else:
                deleted = consumers_delete_empty(uuids=empty)
                self.stdout.write(f"deleted {deleted} empty consumer(s)")
                remaining += len(empty) - deleted
        else:
            remaining += len(empty)

        over = over_capacity()
        self.stdout.write(f"provider/class pairs over capacity: {len(over)}")
        for p in over[:limit]:
            why = "capacity" if p["has_inventory"] else "no inventory"
            self.stdout.write(f"  {p['provider']} {p['resource_class']}: used {p['used']} > "
                              f"{why} {p['capacity']}")
        remaining += len(over)

        incomplete = list(consumers_incomplete().values_list("uuid", flat=True))
        self.stdout.write(f"incomplete consumers (run heal_consumers): {len(incomplete)}")
        for u in incomplete[:limit]:
            self.stdout.write(f"  {u}")
        remaining += len(incomplete)
        return EXIT_PROBLEMS if remaining else EXIT_OK
