"""manage.py drain_what_if [--provider P ...] [--tree T ...] [--aggregate A] [--json]."""
import json

from django.core.management.base import CommandError

from maintenance.base import EXIT_ERROR, EXIT_OK, EXIT_PROBLEMS, MaintenanceCommand
from planning import drain
from planning.drain_text import as_text


class Command(MaintenanceCommand):
    own_json = True
    help = (
        "Would the consumers holding resources on these providers fit on the rest of the "
        "cloud as it is now? Simulates moving each one, largest first, with what it holds "
        "and in the same shape, and prints the verdict, where each consumer would go, why "
        "the others do not fit, and the fullest providers after. Writes nothing. Exit "
        "codes: 0 everything fits, 1 something does not, 2 bad input."
    )

    def add_arguments(self, parser):
        parser.add_argument("--provider", action="append", default=[], metavar="UUID_OR_NAME",
                            help="a provider to drain with everything under it (repeatable)")
        parser.add_argument("--tree", action="append", default=[], metavar="UUID_OR_NAME",
                            help="drain the whole tree of this provider (repeatable)")
        parser.add_argument("--aggregate", metavar="UUID_OR_PROVIDER",
                            help="drain every tree with a provider in this aggregate (its uuid "
                                 "or a provider in it, by name or uuid)")
        parser.add_argument("--required", default="", metavar="TRAIT,...",
                            help="traits every target root must have")
        parser.add_argument("--target-aggregate", metavar="UUID_OR_PROVIDER",
                            help="only trees in this aggregate receive (its uuid or a provider "
                                 "in it)")
        parser.add_argument("--fullest", type=int, default=drain.FULLEST,
                            help=f"fullest providers listed after (default {drain.FULLEST})")
        parser.add_argument("--show", type=int, default=20,
                            help="consumers listed per section in the text output (default 20)")
        parser.add_argument("--json", dest="as_json", action="store_true",
                            help="print the whole result as JSON")

    def run(self, *, provider, tree, aggregate, required, target_aggregate, fullest, show,
            as_json=False, **options):
        if fullest < 0 or show < 0:
            raise CommandError("--fullest and --show must be 0 or more", returncode=EXIT_ERROR)
        result = drain.drain(
            providers=provider, trees=tree, aggregate=aggregate,
            required=[t.strip() for t in required.split(",") if t.strip()],
            target_aggregate=target_aggregate, fullest=fullest)
        if as_json:
            self.stdout.write(json.dumps(result.as_dict(), indent=2))
        else:
            self.stdout.write(as_text(result, show=show), ending="")
        return EXIT_OK if result.fits else EXIT_PROBLEMS
