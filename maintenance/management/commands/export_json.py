"""manage.py export_json: a portable dump of all placement data."""
import json

from maintenance.base import EXIT_OK, MaintenanceCommand
from maintenance.dump import export_data

# Wider only wastes the file (and a huge one is gigabytes of blanks per line).
MAX_INDENT = 16


class Command(MaintenanceCommand):
    help = (
        "Write all placement data (custom classes and traits, aggregates, providers with "
        "inventories/traits/aggregates, projects, users, consumers with allocations) as JSON "
        "keyed by uuids and names, never by database ids. Load it with load_json. "
        "Exit codes: 0 done, 2 error."
    )

    def add_arguments(self, parser):
        parser.add_argument("-o", "--output", default="-", help="File to write (default: stdout).")
        parser.add_argument("--indent", type=int, default=None, help=f"Pretty-print with this indent (0 to {MAX_INDENT}).")

    def run(self, *, output="-", indent=None, **options):
        if indent is not None and not 0 <= indent <= MAX_INDENT:
            raise ValueError(f"--indent must be a whole number from 0 to {MAX_INDENT}")
        data = export_data()
        # With --json the dump itself is the document (or, written to a file, a summary).
        self.report = data if output == "-" else {
            "output": output, "resource_providers": len(data["resource_providers"]),
            "consumers": len(data["consumers"])}
        text = json.dumps(data, indent=indent, sort_keys=False)
        if output == "-":
            self.stdout.write(text)
        else:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(text + "\n")
            self.stderr.write(f"wrote {len(data['resource_providers'])} providers and "
                              f"{len(data['consumers'])} consumers to {output}")
        return EXIT_OK
