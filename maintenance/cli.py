"""The console scripts deployment tools call, with upstream's names:

``placement-manage [--config-file F] db sync | db version | db online_data_migrations``
``placement-status [--config-file F] upgrade check [--json]``

Both set up Django (settings from placement.conf, OS_* and PLACEMENT_*
variables, placement_site/config.py) and run this project's management
commands and checks.  Exit codes follow upstream's tools.
"""
import argparse
import io
import json
import os
import sys

RESULTS = {0: "Success", 1: "Warning", 2: "Failure"}


def _setup(config_files):
    if config_files:
        os.environ["PLACEMENT_CONFIG_FILES"] = os.pathsep.join(
            os.path.abspath(f) for f in config_files)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "placement_site.settings")
    import django

    django.setup()


def _parser(prog):
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--config-file", action="append", default=[],
                        help="placement.conf to read instead of "
                             "$OS_PLACEMENT_CONFIG_DIR/placement.conf (repeatable)")
    return parser


# --- placement-manage -------------------------------------------------------


def _db_sync(args):
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=1)
    return 0


def _db_version(args):
    from django.db import connection
    from django.db.migrations.recorder import MigrationRecorder

    recorder = MigrationRecorder(connection)
    if not recorder.has_table():
        print("None")
        return 0
    applied = recorder.migration_qs.order_by("applied", "id").last()
    print(f"{applied.app}.{applied.name}" if applied else "None")
    return 0


def _db_online_data_migrations(args):
    # Every data change ships inside the schema migrations `db sync` runs;
    # there is nothing left to do online.  The empty summary keeps the
    # command's contract (0: nothing remains) for tools that call it.
    if args.max_count is not None and args.max_count < 1:
        print("--max-count must be a positive integer", file=sys.stderr)
        return 127
    print("+-----------+--------------+-----------+")
    print("| Migration | Total Needed | Completed |")
    print("+-----------+--------------+-----------+")
    print("+-----------+--------------+-----------+")
    return 0


def manage(argv=None):
    parser = _parser("placement-manage")
    commands = parser.add_subparsers(dest="category", required=True)
    db = commands.add_parser("db", help="database schema").add_subparsers(
        dest="action", required=True)
    db.add_parser("sync", help="create or upgrade the schema").set_defaults(run=_db_sync)
    db.add_parser("version", help="print the last applied migration").set_defaults(
        run=_db_version)
    online = db.add_parser("online_data_migrations", help="run online data migrations")
    online.add_argument("--max-count", type=int, default=None)
    online.set_defaults(run=_db_online_data_migrations)
    args = parser.parse_args(argv)
    _setup(args.config_file)
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
    _setup(args.config_file)
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
