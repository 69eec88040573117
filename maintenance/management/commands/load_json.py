"""manage.py load_json: load a dump written by export_json (idempotent)."""
import json
import sys

from maintenance.base import EXIT_OK, MaintenanceCommand
from maintenance.dump import DumpError
from maintenance.loader import load_data


def print_counts(cmd, counts, dry_run):
    prefix = "would load" if dry_run else "loaded"
    cmd.report = {"dry_run": dry_run, "counts": counts}
    for kind, c in counts.items():
        cmd.stdout.write(f"{prefix} {kind}: {c['total']} ({c['created']} created, "
                         f"{c['updated']} updated)")


class Command(MaintenanceCommand):
    help = (
        "Load a JSON dump from export_json. Rows are matched by uuid or name; providers and "
        "consumers in the dump end up with exactly the dump's inventories, traits, aggregates, "
        "allocations and generations; rows not in the dump are left alone. Running it twice "
        "changes nothing the second time. Exit codes: 0 done, 2 error (nothing written)."
    )
    dry_run_help = "Load inside a transaction that is rolled back; report counts."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("path", help="Dump file, or - for stdin.")

    def run(self, *, path, dry_run=False, **options):
        try:
            if path == "-":
                data = json.load(sys.stdin)
            else:
                with open(path, encoding="utf-8") as handle:
                    data = json.load(handle)
        except json.JSONDecodeError as exc:
            raise DumpError(f"{path}: not JSON: {exc}")
        print_counts(self, load_data(data, dry_run=dry_run), dry_run)
        return EXIT_OK
