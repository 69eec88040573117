"""manage.py explain_candidates 'QUERY' [--json]: why a candidates query finds what it finds."""
import json

from django.core.management.base import CommandError

from candidates import explain
from candidates.explanation import as_text
from candidates.query import parse_query
from maintenance.base import EXIT_ERROR, EXIT_OK, EXIT_PROBLEMS, MaintenanceCommand
from placement_core import errors


class Command(MaintenanceCommand):
    own_json = True
    help = (
        "Explain an allocation-candidates query (e.g. 'resources=VCPU:4&required=HW_CPU_X86_AVX2'): "
        "per request group and constraint, which providers and trees were removed and why, with "
        "the numbers, and the providers that came closest. Read as GET /allocation_candidates "
        "reads it at the newest microversion (a missing group_policy means none). Exit codes: "
        "0 candidates exist, 1 none, 2 bad query."
    )

    def add_arguments(self, parser):
        parser.add_argument("query", help="the query string of GET /allocation_candidates")
        parser.add_argument("--json", dest="as_json", action="store_true", help="print the explanation as JSON")
        parser.add_argument("--show", type=int, default=explain.SHOW,
                            help=f"providers listed per step (default {explain.SHOW})")

    def run(self, *, query, as_json=False, show=explain.SHOW, **options):
        if show < 0:
            raise CommandError("--show must be 0 or more", returncode=EXIT_ERROR)
        try:
            result = explain.explain(parse_query(query), show=show)
        except errors.PlacementError as exc:
            raise CommandError(f"bad query: {exc}".splitlines()[0], returncode=EXIT_ERROR)
        if as_json:
            self.stdout.write(json.dumps(result.as_dict(), indent=2))
        else:
            self.stdout.write(as_text(result), ending="")
        return EXIT_OK if result.candidates else EXIT_PROBLEMS

