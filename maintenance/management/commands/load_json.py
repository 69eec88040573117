"""manage.py load_json: load a dump written by export_json (idempotent)."""
import json
import sys

from maintenance.base import EXIT_OK, MaintenanceCommand
from maintenance.dump import DumpError
from maintenance.loader import load_data
from placement_core.texttable import table


ALLOW_OVER_CAPACITY_HELP = (
    "Load allocations beyond (total - reserved) x allocation_ratio, for restoring a cloud "
    "over-committed on purpose; they are listed. Every other check still refuses the file.")


def print_counts(cmd, result, dry_run):
    counts, over = result
    prefix = "would load" if dry_run else "loaded"
    cmd.report = {"dry_run": dry_run, "counts": counts, "over_capacity": over}
    cmd.stdout.write(f"{prefix}:")
    for line in table(["rows", "total", "created", "updated"],
                      [[kind, c["total"], c["created"], c["updated"]] for kind, c in counts.items()],
                      right=(1, 2, 3), indent="  "):
        cmd.stdout.write(line)
    if over:
        cmd.stdout.write(f"{len(over)} provider/class pair(s) over capacity, loaded as asked "
                         "(--allow-over-capacity):")
        for line in over:
            cmd.stdout.write(f"  {line}")


class Command(MaintenanceCommand):
    help = (
        "Load a JSON dump from export_json. Rows are matched by uuid or name; providers and "
        "consumers in the dump end up with exactly the dump's inventories, traits, aggregates, "
        "allocations and generations; rows not in the dump are left alone. Running it twice "
        "changes nothing the second time. The whole file is checked first, with what is stored "
        "(rows, trees, inventory and capacity): any problem refuses it. Exit codes: 0 done, "
        "2 error (nothing written)."
    )
    dry_run_help = "Load inside a transaction that is rolled back; report counts."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("path", help="Dump file, or - for stdin.")
        parser.add_argument("--allow-over-capacity", action="store_true",
                            help=ALLOW_OVER_CAPACITY_HELP)

    def run(self, *, path, dry_run=False, allow_over_capacity=False, **options):
        try:
            if path == "-":
                data = json.load(sys.stdin)
            else:
                with open(path, encoding="utf-8") as handle:
                    data = json.load(handle)
        except json.JSONDecodeError as exc:
            raise DumpError(f"{path}: not JSON: {exc}")
        except RecursionError:
            raise DumpError(f"{path}: not a dump: nested too deeply to read") from None
        except UnicodeDecodeError as exc:
            raise DumpError(f"{path}: not UTF-8 text: {exc}") from None
        print_counts(self, load_data(data, dry_run=dry_run,
                                     allow_over_capacity=allow_over_capacity), dry_run)
        return EXIT_OK
