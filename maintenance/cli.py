"""The console scripts of an installed copy, with upstream's names:

``placement-manage [--config-file F] [--config-dir D] db sync | db version |
db stamp VERSION | db online_data_migrations``
``placement-manage [--config-file F] [--config-dir D] COMMAND [options]``:
every operator command (audit, heal, explain, headroom, ... : ``COMMANDS``)
``placement-status [--config-file F] [--config-dir D] upgrade check [--json]``

Both set up Django (settings from placement.conf, OS_* and PLACEMENT_*
variables, placement_site/config.py) and run this project's management
commands and checks.  The ``db`` and ``upgrade`` exit codes follow upstream's
tools; the operator commands' are theirs (0 done, 1 problems found, 2 error).
"""
import argparse
import io
import json
import os
import sys

RESULTS = {0: "Success", 1: "Warning", 2: "Failure"}

# placement-manage NAME -> (the management command it runs, what it is for).
COMMANDS = {
    "audit": ("audit_allocations", "find (and with --fix repair) suspicious allocation data"),
    "heal": ("heal_consumers", "give consumers with the incomplete project/user real ids"),
    "explain": ("explain_candidates", "why a GET /allocation_candidates query finds what it finds"),
    "headroom": ("headroom", "how many more of each flavor fit"),
    "flavors": ("flavors", "list, store and delete the flavors headroom counts"),
    "history": ("allocation_history", "a consumer's or a provider's allocation changes"),
    "prune-history": ("prune_allocation_history", "drop allocation history past its retention"),
    "snapshot": ("take_usage_snapshot", "record capacity and usage now (for cron)"),
    "tree": ("provider_tree", "print provider trees"),
    "drain": ("drain_what_if", "would the consumers on these providers fit elsewhere"),
    "forecast": ("capacity_forecast", "days until full per class; stranded capacity"),
    "failures": ("scheduling_failures", "recorded scheduling failures, by reason or request id"),
    "export": ("export_json", "write all placement data as portable JSON"),
    "load": ("load_json", "load an export into this database"),
    "import-upstream": ("import_upstream", "copy an upstream Placement database into this one"),
    "sync-catalog": ("sync_catalog", "add the os-traits/os-resource-classes names missing here"),
    "policy": ("policy_show", "print the effective policy rules"),
    "create-user": ("createsuperuser", "create a console (and admin) user"),
    "set-password": ("changepassword", "set a console user's password"),
    "unlock-login": ("login_unlock", "lift console and admin log-in locks"),
}


def _setup(config_files, config_dirs=()):
    if config_files:
        os.environ["PLACEMENT_CONFIG_FILES"] = os.pathsep.join(
            os.path.abspath(f) for f in config_files)
    if config_dirs:
        os.environ["PLACEMENT_CONFIG_DIRS"] = os.pathsep.join(
            os.path.abspath(d) for d in config_dirs)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "placement_site.settings")
    import django

    django.setup()


def _add_config_options(parser):
    parser.add_argument("--config-file", action="append", default=[],
                        help="placement.conf to read instead of the one found in "
                             "$OS_PLACEMENT_CONFIG_DIR, ~/.placement, /etc/placement (repeatable)")
    parser.add_argument("--config-dir", action="append", default=[],
                        help="a directory whose *.conf files are read after the configuration "
                             "files, in name order, instead of placement.conf.d (repeatable)")
    return parser


def _parser(prog):
    return _add_config_options(argparse.ArgumentParser(prog=prog))


# --- placement-manage -------------------------------------------------------


def _say_database():
    """Which database the command works on, on stderr (stdout is for tools)."""
    from django.conf import settings

    from placement_core.state import describe_database

    print(f"placement-manage: database {describe_database(settings.DATABASES['default'])}",
          file=sys.stderr)


def _db_sync(args):
    """Create or bring up to date this service's schema.  On an empty database
    that is upstream's tables (stamped at upstream's head) and this service's
    own; on a database upstream made, at upstream's head, only this
    service's own tables are added (adoption); at another upstream revision
    nothing is written."""
    from django.core.management import call_command
    from django.db import connection

    from placement_core import schema_move

    try:
        revision = schema_move.check_revision(connection)
    except schema_move.WrongUpstreamRevision as exc:
        print(f"placement-manage: {exc}", file=sys.stderr)
        return 1
    if revision is not None and not _applied_here(connection):
        print(f"placement-manage: upstream Placement's tables found at {revision}: adopting "
              "them in place (only this service's own tables are added)", file=sys.stderr)
    call_command("migrate", interactive=False, verbosity=1)
    return 0


def _applied_here(connection):
    from django.db.migrations.recorder import MigrationRecorder

    recorder = MigrationRecorder(connection)
    return recorder.has_table() and recorder.migration_qs.exists()


def _db_version(args):
    """This service's last migration on stdout (what `db stamp` takes back);
    upstream's schema revision (``alembic_version``) on stderr."""
    from django.db import connection
    from django.db.migrations.recorder import MigrationRecorder

    from placement_core.shared_schema import alembic_revision

    print(f"placement-manage: upstream schema revision {alembic_revision(connection)}",
          file=sys.stderr)
    recorder = MigrationRecorder(connection)
    if not recorder.has_table():
        print("None")
        return 0
    applied = recorder.migration_qs.order_by("applied", "id").last()
    print(f"{applied.app}.{applied.name}" if applied else "None")
    return 0


def _db_stamp(args):
    """Record the schema as being at VERSION without running anything (for a
    database whose schema was made by other means): ``head`` marks every
    migration applied; ``APP.MIGRATION`` (as ``db version`` prints it) marks
    that one and the ones it depends on."""
    from django.core.management import call_command
    from django.db.migrations.loader import MigrationLoader

    from django.db import connection

    if args.version == "head":
        call_command("migrate", fake=True, interactive=False, verbosity=0)
        return _db_version(args)
    app, _, name = args.version.partition(".")
    loader = MigrationLoader(connection, ignore_no_migrations=True)
    if (app, name) not in loader.disk_migrations:
        print(f"placement-manage: no migration {args.version!r} (give 'head' or "
              "APP.MIGRATION as `db version` prints it)", file=sys.stderr)
        return 2
    call_command("migrate", app, name, fake=True, interactive=False, verbosity=0)
    return _db_version(args)


def _db_online_data_migrations(args):
    # Every data change ships inside the schema migrations `db sync` runs;
    # there is nothing left to do online.  The empty summary keeps the
    # command's contract for tools that call it: 0 nothing remains, 2 an
    # error (a database that cannot be reached or has no schema yet: a tool
    # retrying until 0 or 2 must not take that for done), 127 bad input.
    if args.max_count is not None and args.max_count < 1:
        print("--max-count must be a positive integer", file=sys.stderr)
        return 127
    from maintenance.checks import schema_problem

    problem = schema_problem()
    if problem:
        print(f"placement-manage: {problem}", file=sys.stderr)
        return 2
    print("+-----------+--------------+-----------+")
    print("| Migration | Total Needed | Completed |")
    print("+-----------+--------------+-----------+")
    print("+-----------+--------------+-----------+")
    return 0


def _config_paths(argv, option):
    """The values of ``option`` (``--config-file``, ``--config-dir``)
    anywhere in ``argv`` (before ``--``)."""
    paths = []
    for i, word in enumerate(argv):
        if word == "--":
            break
        if word == option and i + 1 < len(argv):
            paths.append(argv[i + 1])
        elif word.startswith(option + "="):
            paths.append(word.split("=", 1)[1])
    return paths


def _command_name(argv):
    """(position, word): the first word of ``argv`` that is neither an option
    nor its value; (None, None) when there is none."""
    skip = False
    for i, word in enumerate(argv):
        if skip:
            skip = False
        elif word in ("--config-file", "--config-dir"):
            skip = True
        elif not word.startswith("-"):
            return i, word
    return None, None


def _run_command(position, name, argv):
    """``placement-manage NAME ...``: the management command, parsed by its
    own parser (``--help``), with ``--config-file``/``--config-dir`` accepted
    there too."""
    _setup(_config_paths(argv, "--config-file"), _config_paths(argv, "--config-dir"))
    from django.core.management import get_commands, load_command_class

    django_name, _about = COMMANDS[name]
    command = load_command_class(get_commands()[django_name], django_name)
    own_parser = command.create_parser

    def create_parser(prog_name, subcommand, **kwargs):
        return _add_config_options(own_parser(prog_name, subcommand, **kwargs))

    command.create_parser = create_parser
    rest = argv[:position] + argv[position + 1:]
    # run_from_argv exits non-zero itself on a CommandError (one line on stderr).
    command.run_from_argv(["placement-manage", name, *rest])
    return 0


def manage(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    position, name = _command_name(argv)
    if name in COMMANDS:
        return _run_command(position, name, argv)
    parser = _parser("placement-manage")
    parser.epilog = "operator commands (placement-manage COMMAND --help for each):\n" + "\n".join(
        f"  {n:<16} {about}" for n, (_cmd, about) in COMMANDS.items())
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    commands = parser.add_subparsers(dest="category", required=True,
                                     metavar="{db," + ",".join(COMMANDS) + "}")
    db = commands.add_parser("db", help="database schema").add_subparsers(
        dest="action", required=True)
    db.add_parser("sync", help="create or upgrade the schema").set_defaults(run=_db_sync)
    db.add_parser("version", help="print the last applied migration").set_defaults(
        run=_db_version)
    stamp = db.add_parser("stamp", help="record the schema as at VERSION without migrating")
    stamp.add_argument("version", help="'head', or APP.MIGRATION as `db version` prints it")
    stamp.set_defaults(run=_db_stamp)
    online = db.add_parser("online_data_migrations", help="run online data migrations")
    online.add_argument("--max-count", type=int, default=None)
    online.set_defaults(run=_db_online_data_migrations)
    args = parser.parse_args(argv)
    _setup(args.config_file, args.config_dir)
    _say_database()
    try:
        return args.run(args)
    except Exception as exc:  # the tool's contract: one line, exit 1
        print(f"placement-manage: {type(exc).__name__}: {exc}".splitlines()[0], file=sys.stderr)
        return 1


# --- placement-status -------------------------------------------------------


def _results():
    from maintenance.checks import status_checks

    results = []
    for check in status_checks():
        code = 0 if check.ok else (1 if check.severity == "warning" else 2)
        results.append({"check": check.name, "result": code,
                        "details": "\n".join(check.details) or None})
    return results


def _table(results):
    width = max([len("Upgrade Check Results")] + [
        len(line) for r in results for line in
        [f"Check: {r['check']}", f"Result: {RESULTS[r['result']]}"]
        + [f"Details: {d}" for d in (r["details"] or "None").splitlines()]])
    rule = "+" + "-" * (width + 2) + "+"
    out = io.StringIO()

    def row(text):
        out.write(f"| {text:<{width}} |\n")

    out.write(f"{rule}\n")
    row("Upgrade Check Results")
    out.write(f"{rule.replace('-', '=')}\n")
    for r in results:
        row(f"Check: {r['check']}")
        row(f"Result: {RESULTS[r['result']]}")
        for line in (r["details"] or "None").splitlines():
            row(f"Details: {line}")
        out.write(f"{rule}\n")
    return out.getvalue()


def status(argv=None):
    parser = _parser("placement-status")
    commands = parser.add_subparsers(dest="category", required=True)
    upgrade = commands.add_parser("upgrade").add_subparsers(dest="action", required=True)
    check = upgrade.add_parser("check", help="run the upgrade checks")
    check.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    _setup(args.config_file, args.config_dir)
    from django.db import DatabaseError, connection

    try:
        # Upstream's checks read the database: one that cannot be reached is
        # an error running them (255), not a check that failed (2).
        connection.ensure_connection()
    except DatabaseError as exc:
        print(f"placement-status: the database cannot be reached: "
              f"{str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}",
              file=sys.stderr)
        return 255
    try:
        results = _results()
    except Exception as exc:
        print(f"placement-status: {type(exc).__name__}: {exc}".splitlines()[0], file=sys.stderr)
        return 255
    worst = max((r["result"] for r in results), default=0)
    if args.json:
        print(json.dumps({"name": "placement", "result": worst,
                          "result_name": RESULTS[worst], "checks": [
                              dict(r, result_name=RESULTS[r["result"]]) for r in results]},
                         indent=2))
    else:
        sys.stdout.write(_table(results))
    return worst


def main_manage():
    sys.exit(manage())


def main_status():
    sys.exit(status())
