"""manage.py scheduling_failures [--global-request-id ID] [--reason R] [--hours N] [--json] [--prune]."""
import json

from django.http import QueryDict

from maintenance.base import EXIT_OK, EXIT_PROBLEMS, MaintenanceCommand
from planning import failures


class Command(MaintenanceCommand):
    own_json = True
    dry_run_help = "With --prune: count what would be dropped, drop nothing."
    help = (
        "Recorded scheduling failures: GET /allocation_candidates answers without candidates "
        "and claims refused for capacity, grouped by kind and reason with a trend, and the "
        "newest records with the explanation computed when they happened (--json). "
        "--global-request-id finds the records of one Nova request (its "
        "X-OpenStack-Request-ID) whatever their age. --prune first drops records past "
        "PLACEMENT_FAILURE_RETENTION_DAYS and PLACEMENT_FAILURE_MAX_RECORDS. Exit codes: 0 "
        "none found, 1 some found, 2 bad input."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--global-request-id", help="X-OpenStack-Request-ID (req-<uuid>)")
        parser.add_argument("--request-id", help="this service's request id (req-<uuid>)")
        parser.add_argument("--kind", help="candidates or claim")
        parser.add_argument("--reason", help=f"one of {', '.join(failures.REASONS)}")
        parser.add_argument("--hours", type=int, help="period, hours back from now (default 24)")
        parser.add_argument("--limit", type=int, help="records listed (default 50)")
        parser.add_argument("--prune", action="store_true",
                            help="drop old records first (retention settings)")
        parser.add_argument("--json", dest="as_json", action="store_true",
                            help="print the groups and records (with explanations) as JSON")

    def run(self, *, prune=False, dry_run=False, as_json=False, **options):
        query = QueryDict(mutable=True)
        for key in ("global_request_id", "request_id", "kind", "reason", "hours", "limit"):
            if options.get(key) is not None:
                query[key] = str(options[key])
        arguments = failures.arguments(query)
        pruned = failures.prune(dry_run=dry_run) if prune else 0
        result = failures.report(**arguments)
        if as_json:
            self.stdout.write(json.dumps({**result, "pruned": pruned, "dry_run": dry_run},
                                         indent=2))
        else:
            if prune:
                self.stdout.write(f"{'would prune' if dry_run else 'pruned'} {pruned} record(s)")
            asked = ", ".join(f"{key.replace('_', ' ')} {options[key]}" for key in (
                "global_request_id", "request_id", "kind", "reason") if options.get(key))
            self.stdout.write(failures.as_text(result, asked=asked), ending="")
        return EXIT_PROBLEMS if result["total"] or result["failures"] else EXIT_OK
