"""Exit codes a script can use, and the base of every maintenance command.

0: all good; 1: problems found (or left); 2: the command could not run
(bad option, unreachable database, bad file).

Every command takes ``--json``: the command sets ``self.report`` (a dict)
and the base prints it as one JSON document instead of the text lines; a
command that has not described its result in a dict yet gets its text
lines as ``{"lines": [...]}``.  Errors stay one line on stderr with exit
code 2, in both modes: on a command line "PROG NAME: what is wrong", with no
usage block and no exception class.

Long work shows its progress (``self.progress``) on stderr, only when stderr
is a terminal: a pipe or a cron mail gets the result alone.
"""
import io
import json
import os
import re
import sys
import uuid

from django.core.management.base import BaseCommand, CommandError, OutputWrapper

from maintenance.dump import DumpError
from placement_core import request_scope
from placement_core.errors import PlacementError

EXIT_OK, EXIT_PROBLEMS, EXIT_ERROR = 0, 1, 2


class MaintenanceCommand(BaseCommand):
    """``run()`` returns the exit code; errors become exit code 2."""

    dry_run_help = None  # set to a string to add --dry-run
    # True for commands whose --json is their own (they print the JSON).
    own_json = False

    def create_parser(self, prog_name, subcommand, **kwargs):
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        # A refused option is one line ("PROG NAME: error: ..."); --help
        # still prints the usage.
        parser.print_usage = lambda file=None: None
        if not self.own_json:
            parser.add_argument("--json", dest="as_json", action="store_true",
                                help="Print the result as one JSON document.")
        return parser

    def add_arguments(self, parser):
        if self.dry_run_help:
            parser.add_argument("--dry-run", action="store_true", help=self.dry_run_help)

    def run_from_argv(self, argv):
        self.prog = f"{os.path.basename(argv[0])} {argv[1]}"
        super().run_from_argv(argv)

    def execute(self, *args, **options):
        if not getattr(self, "_called_from_command_line", False) or options.get("traceback"):
            return super().execute(*args, **options)
        try:
            return super().execute(*args, **options)
        except CommandError as exc:
            # Django would write "CommandError: ..."; the operator gets the
            # command's name and what is wrong.
            self.stderr.write(f"{self.prog}: {exc}")
            sys.exit(exc.returncode)

    def progress(self, done, total, what=""):
        """"[3/8] what" on one rewritten stderr line while work goes on
        (``done`` steps finished of ``total``), the line cleared at the end;
        nothing unless stderr is a terminal."""
        stream = getattr(self.stderr, "_out", self.stderr)
        if not getattr(stream, "isatty", lambda: False)():
            return
        if done >= total:
            stream.write("\r\x1b[K")
        else:
            stream.write(f"\r\x1b[K[{done + 1}/{total}] {what}"[:100])
        stream.flush()

    def handle(self, *args, **options):
        as_json = options.get("as_json") and not self.own_json
        self.report = None
        real = self.stdout
        if as_json:
            self.stdout = OutputWrapper(io.StringIO())
        # What the command writes is recorded in the allocation history under
        # its name (load_json and import_upstream bind their own).
        caller = request_scope.Caller(request_id=f"req-{uuid.uuid4()}",
                                      source=self.__module__.rsplit(".", 1)[-1])
        try:
            with request_scope.bound(caller):
                code = self.run(**options)
        except (DumpError, OSError, ValueError) as exc:
            raise CommandError(str(exc), returncode=EXIT_ERROR)
        except PlacementError as exc:
            # A service refused (as the API would, with a 4xx): one line.
            raise CommandError(in_own_words(exc), returncode=EXIT_ERROR)
        finally:
            captured = self.stdout._out.getvalue() if as_json else ""
            self.stdout = real
        if as_json:
            report = self.report if self.report is not None else {
                "lines": captured.splitlines()}
            real.write(json.dumps(report, indent=2, default=str))
        if code:
            sys.exit(code)

    def run(self, **options):  # pragma: no cover - abstract
        raise NotImplementedError


def in_own_words(exc: PlacementError) -> str:
    """A refusal the planning and API readers word for a query string, in a
    command's words: its first line, without "Invalid query string
    parameters:", each parameter as the option that sets it (``window_days``
    is ``--window-days``)."""
    text = str(exc.detail).splitlines()[0]
    text = re.sub(r"^Invalid query string parameters:\s*", "", text)

    def option(match):
        return "--" + match.group(0).replace("_", "-")

    text = re.sub(r"\b(?:window_days|threshold_percent|global_request_id|request_id|"
                  r"target_aggregate|hours|limit|show|fullest|kind|reason|aggregate|"
                  r"provider|tree|required)\b(?= (?:must|is|given|should|:))", option, text)
    return text or str(exc.detail)
