#!/usr/bin/env python3
"""Run upstream Placement's gabbi test files against the project's server.

    make conformance ARGS="[--files a.yaml b.yaml ... | --list NAME]
                           [--jobs N] [--json OUT.json] ..."

(``run`` is the bash entry point beside this file: it makes the runner's
virtualenv and calls ``run.py --target project --project-dir <repository>
...``; ``make conformance`` calls ``run --known-failures
conformance-known-failures.txt $(ARGS)``.)

The gabbi files come from the pinned openstack-placement release, fetched
and cached by upstream.py (``--gabbits-dir`` to use other ones).

For every gabbit file: copy a migrated template database, start a fresh
server configured the way the file's fixture needs, re-create the fixture's
data through the HTTP API (http_fixtures.py), run the file with gabbi
against http://127.0.0.1:<port>, stop the server, drop the database.

Each file runs in its own worker subprocess (gabbi substitutes
$ENVIRON[...] from the process environment, which the fixtures set).
See README.md.
"""

# This file is the command line; orchestrator.py runs the files, worker.py
# one file, servers.py and databases.py the server processes and databases,
# report.py the output.

import argparse
import datetime
import os
import signal
import subprocess
import sys

sys.dont_write_bytecode = True  # keep the checkout free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import known_failures  # noqa: E402
import targets  # noqa: E402
import upstream  # noqa: E402
from orchestrator import Orchestrator  # noqa: E402
from report import compare, summarize, write_json  # noqa: E402
from worker import raise_sigterm, worker_main  # noqa: E402

FILE_TIMEOUT = 600
# Every policy rule name except admin_api set to "@" (OpenPolicyFixture).
OPEN_POLICY_FILE = os.path.join(HERE, 'open-policy.yaml')

# Named file lists for --list.
LISTS = {
    'smoke': ['basic-http.yaml', 'microversion.yaml', 'resource-provider.yaml',
              'inventory.yaml', 'allocations-1.28.yaml', 'traits.yaml',
              'cors.yaml', 'resource-classes-policy.yaml', 'granular.yaml',
              'allocations-secure-rbac.yaml'],
}


def gabbit_names(gabbits_dir):
    return sorted(f for f in os.listdir(gabbits_dir) if f.endswith('.yaml'))


def resolve_list(name, gabbits_dir):
    all_files = gabbit_names(gabbits_dir)
    if name == 'all':
        return all_files
    if name in LISTS:
        return LISTS[name]
    if name in ('rbac', 'policy'):
        return [f for f in all_files
                if f.endswith(('-rbac.yaml', '-policy.yaml'))]
    if name in ('allocation-candidates', 'candidates'):
        return [f for f in all_files
                if f.startswith('allocation-candidates')]
    if os.path.isfile(name):
        with open(name) as fh:
            return [ln.strip() for ln in fh
                    if ln.strip() and not ln.startswith('#')]
    raise SystemExit('unknown --list %s (all, smoke, rbac, '
                     'allocation-candidates, or a file of names)' % name)


def _tail(path, lines=40):
    try:
        with open(path, 'rb') as fh:
            text = fh.read().decode('utf-8', 'replace')
    except OSError:
        return ''
    return '\n'.join(text.splitlines()[-lines:])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument('--target', choices=sorted(targets.TARGETS),
                   default='project',
                   help='project (default), upstream (openstack-placement '
                        '16.0.0) or pair (both on one database behind a '
                        'random proxy; tests/onedb/pair_server.py)')
    p.add_argument('--project-dir', default=None,
                   help='checkout of the project (default: the current '
                        'directory)')
    g = p.add_mutually_exclusive_group()
    g.add_argument('--files', nargs='+', metavar='FILE',
                   help='gabbit files (names in the gabbits dir, with or '
                        'without .yaml, or paths)')
    g.add_argument('--list', metavar='NAME',
                   help='all (default) | smoke | rbac | '
                        'allocation-candidates | a file with one name per '
                        'line')
    p.add_argument('--gabbits-dir', default=None,
                   help='default: the files of openstack-placement==%s, '
                        'fetched once into the cache' % upstream.VERSION)
    p.add_argument('--jobs', type=int, default=2,
                   help='files run at once (default 2)')
    p.add_argument('--json', metavar='OUT.json',
                   help='write every test\'s outcome and message')
    p.add_argument('--known-failures', metavar='FILE',
                   help='judge the run against this list of tests known to '
                        'fail ("file.yaml::test name" per line): fail on a '
                        'failing test not listed, on a listed test that '
                        'passes, and on a listed name that matches no test')
    p.add_argument('--write-known-failures', metavar='FILE',
                   help='write the failing tests of this run to FILE in the '
                        '--known-failures format (with --known-failures, '
                        'entries for files not run are kept)')
    p.add_argument('--log-dir', default=None,
                   help='where server/worker logs go (default: a new '
                        '$TMPDIR/conformance-project-<time>-<pid> dir)')
    p.add_argument('--file-timeout', type=int, default=FILE_TIMEOUT,
                   help='seconds one file may take (default %d)'
                   % FILE_TIMEOUT)
    p.add_argument('--server-env', action='append', metavar='KEY=VALUE',
                   help='extra environment variable for the server '
                        '(repeatable)')
    p.add_argument('--keep-dbs', action='store_true',
                   help='do not drop the databases (to look at them with '
                        'psql); the next run drops them')
    p.add_argument('--no-exclusions', action='store_true',
                   help='judge every test (ignore exclusions.py)')
    p.add_argument('--baseline', metavar='OLD.json',
                   help='also list tests whose outcome differs from an '
                        'earlier --json result')
    # worker mode (internal)
    p.add_argument('--worker', action='store_true', help=argparse.SUPPRESS)
    p.add_argument('--gabbit', help=argparse.SUPPRESS)
    p.add_argument('--db', help=argparse.SUPPRESS)
    p.add_argument('--template', help=argparse.SUPPRESS)
    p.add_argument('--port', type=int, help=argparse.SUPPRESS)
    p.add_argument('--out', help=argparse.SUPPRESS)
    p.add_argument('--pid-file', help=argparse.SUPPRESS)
    p.add_argument('--open-policy-file', default=OPEN_POLICY_FILE,
                   help=argparse.SUPPRESS)
    p.add_argument('--server-log', help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.worker:
        return worker_main(args)

    if args.jobs < 1:
        p.error('--jobs must be at least 1')
    args.started = datetime.datetime.now().isoformat(timespec='seconds')
    args.project_dir = os.path.abspath(args.project_dir or os.getcwd())
    args.open_policy_file = os.path.abspath(args.open_policy_file)
    if args.gabbits_dir:
        gdir = os.path.abspath(args.gabbits_dir)
        if not os.path.isdir(gdir):
            raise SystemExit('no gabbits directory %s' % gdir)
    else:
        try:
            gdir = upstream.ensure(log=lambda msg: sys.stderr.write(
                '[conformance] %s\n' % msg))
        except (OSError, subprocess.SubprocessError,
                upstream.FetchError) as exc:
            raise SystemExit('[conformance] cannot get the gabbi files: %s'
                             % exc)
    if args.files:
        names = args.files
    else:
        names = resolve_list(args.list or 'all', gdir)
    files = []
    for n in names:
        path = n if os.path.sep in n else os.path.join(gdir, n)
        if not path.endswith('.yaml') and not os.path.exists(path):
            path += '.yaml'
        if not os.path.isfile(path):
            raise SystemExit('no such gabbit file: %s' % path)
        path = os.path.abspath(path)
        if path not in files:
            files.append(path)

    # Read the known-failures list before spending minutes on the run.
    entries = None
    if args.known_failures:
        try:
            entries = known_failures.parse(args.known_failures)
        except (OSError, known_failures.FormatError) as exc:
            raise SystemExit('--known-failures: %s' % exc)
    if args.write_known_failures:
        wdir = os.path.dirname(os.path.abspath(args.write_known_failures))
        if not os.path.isdir(wdir):
            raise SystemExit('--write-known-failures: no directory %s'
                             % wdir)

    # Slowest files first keeps both job slots busy until the end.
    weight = {}
    for f in files:
        try:
            weight[f] = os.path.getsize(f)
        except OSError:
            weight[f] = 0
    files.sort(key=lambda f: -weight[f])

    target = targets.get_target(args.target, args.project_dir)
    problems = target.check()
    if problems:
        raise SystemExit('the project in %s cannot be run: %s\n(see the '
                         'server contract in %s)' % (
                             args.project_dir, '; '.join(problems),
                             os.path.join(HERE, 'README.md')))
    signal.signal(signal.SIGTERM, raise_sigterm)
    orch = Orchestrator(args)
    try:
        results, wall = orch.run(files)
    except KeyboardInterrupt:
        sys.stderr.write('[conformance] interrupted; servers stopped and '
                         'databases dropped\n')
        return 130
    except Exception as exc:  # template preparation, PostgreSQL, ...
        log_path = os.path.join(orch.run_dir, 'template.log')
        sys.stderr.write('[conformance] run failed: %s: %s\n'
                         % (exc.__class__.__name__, exc))
        tail = _tail(log_path)
        if tail:
            sys.stderr.write('[conformance] last lines of %s:\n%s\n'
                             % (log_path, tail))
        print('CONFORMANCE ERROR: the run could not start (%s); logs in %s'
              % (exc.__class__.__name__, orch.run_dir))
        return 1
    total = summarize(results, wall, args, orch.run_dir)
    judgement = None
    if entries is not None:
        judgement = known_failures.judge(
            results, entries, set(gabbit_names(gdir)) |
            set(os.path.basename(f) for f in files))
    if args.json:
        write_json(args.json, results, total, wall, args, orch.run_dir,
                   judgement)
    if args.baseline:
        compare(results, args.baseline)
    if args.write_known_failures:
        carried = (judgement['not_run'] + judgement['not_judged']
                   if judgement else [])
        n = known_failures.write(args.write_known_failures, results,
                                 carried)
        print('wrote %d known failures to %s' % (n, args.write_known_failures))
    if judgement is not None:
        known_failures.report(judgement, args.known_failures, sys.stdout)
        return 0 if judgement['ok'] else 1
    return 0 if not (total['failed'] or total['errors']) else 1


if __name__ == '__main__':
    sys.exit(main())
