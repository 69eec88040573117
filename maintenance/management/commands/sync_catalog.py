"""manage.py sync_catalog: add missing standard resource classes and traits."""
import textwrap

from maintenance.base import EXIT_OK, MaintenanceCommand
from maintenance.checks import catalog_missing
from resource_classes.services import catalog_sync


class Command(MaintenanceCommand):
    help = (
        "Add the standard resource classes (os-resource-classes) and traits (os-traits) "
        "that the database lacks. Existing rows are never changed. Exit codes: 0 done "
        "(or nothing to do), 2 error."
    )
    dry_run_help = "Only report what would be added."

    def run(self, *, dry_run=False, **options):
        missing = catalog_missing()
        if dry_run:
            self.report = {"dry_run": True, "would_add": missing}
            for kind, names in missing.items():
                # Hundreds of trait names: wrapped to the terminal, not one line.
                for line in textwrap.wrap(f"would add {len(names)} {kind}: "
                                          f"{', '.join(names) or '-'}", 100,
                                          subsequent_indent="  "):
                    self.stdout.write(line)
            return EXIT_OK
        added = catalog_sync()
        self.report = {"dry_run": False, "added": added}
        for kind, n in added.items():
            self.stdout.write(f"added {n} {kind}")
        return EXIT_OK
