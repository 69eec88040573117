"""manage.py import_upstream: copy data from an upstream Placement database."""
from django.core.management.base import CommandError

from maintenance.base import EXIT_ERROR, EXIT_OK, MaintenanceCommand
from maintenance.dump import DumpError
from maintenance.loader import load_data
from maintenance.management.commands.load_json import ALLOW_OVER_CAPACITY_HELP, print_counts
from maintenance.upstream import read_upstream


class Command(MaintenanceCommand):
    help = (
        "Copy everything from an upstream OpenStack Placement database (its tables "
        "resource_providers, inventories, allocations, consumers, projects, users, traits, "
        "resource_classes, placement_aggregates, resource_provider_aggregates, "
        "resource_provider_traits, consumer_types) into this service, keeping uuids and "
        "generations. Safe to run again. Reads sqlite:///, postgres:// and (with PyMySQL) "
        "mysql:// URLs; the upstream database is only read. Exit codes: 0 done, 2 error "
        "(nothing written)."
    )
    dry_run_help = "Import inside a transaction that is rolled back; report counts."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--database-url", required=True,
                            help="Upstream database, e.g. postgres://user@host/placement.")
        parser.add_argument("--allow-over-capacity", action="store_true",
                            help=ALLOW_OVER_CAPACITY_HELP)

    def run(self, *, database_url, dry_run=False, allow_over_capacity=False, **options):
        try:
            data = read_upstream(database_url)
        except DumpError:
            raise
        except Exception as exc:  # driver errors: unreachable, missing tables, ...
            # One line: psycopg's messages go on with hints on a second.
            raise CommandError(f"cannot read the upstream database: {exc}".splitlines()[0],
                               returncode=EXIT_ERROR)
        print_counts(self, load_data(data, dry_run=dry_run, source="import_upstream",
                                     allow_over_capacity=allow_over_capacity), dry_run)
        return EXIT_OK
