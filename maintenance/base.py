"""Exit codes a script can use, and the base of every maintenance command.

0: all good; 1: problems found (or left); 2: the command could not run
(bad option, unreachable database, bad file).
"""
import sys

from django.core.management.base import BaseCommand, CommandError

from maintenance.dump import DumpError

EXIT_OK, EXIT_PROBLEMS, EXIT_ERROR = 0, 1, 2


class MaintenanceCommand(BaseCommand):
    """``run()`` returns the exit code; errors become exit code 2."""

    dry_run_help = None  # set to a string to add --dry-run

    def add_arguments(self, parser):
        if self.dry_run_help:
            parser.add_argument("--dry-run", action="store_true", help=self.dry_run_help)

    def handle(self, *args, **options):
        try:
            code = self.run(**options)
        except (DumpError, OSError, ValueError) as exc:
            raise CommandError(str(exc), returncode=EXIT_ERROR)
        if code:
            sys.exit(code)

    def run(self, **options):  # pragma: no cover - abstract
        raise NotImplementedError
