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

import argparse
import datetime
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import unittest
from concurrent import futures

sys.dont_write_bytecode = True  # keep the checkout free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import exclusions  # noqa: E402
import known_failures  # noqa: E402
import targets  # noqa: E402
import upstream  # noqa: E402

DEFAULT_PORT_RANGE = '18100-18199'
DB_PREFIX = 'conf_'
FILE_TIMEOUT = 600
# Every policy rule name except admin_api set to "@" (OpenPolicyFixture).
OPEN_POLICY_FILE = os.path.join(HERE, 'open-policy.yaml')


def parse_port_range(text):
    """"18100-18199" (inclusive) -> list of ports."""
    try:
        lo, hi = (int(x) for x in text.strip().split('-', 1))
    except ValueError:
        raise SystemExit('CONFORMANCE_PORT_RANGE must look like 18100-18199, '
                         'not %r' % text)
    if not (1024 <= lo <= hi <= 65535) or hi - lo < 2:
        raise SystemExit('CONFORMANCE_PORT_RANGE %r: need at least 3 ports '
                         'within 1024-65535' % text)
    return list(range(lo, hi + 1))


PORTS = parse_port_range(os.environ.get('CONFORMANCE_PORT_RANGE')
                         or DEFAULT_PORT_RANGE)


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


# ---------------------------------------------------------------------------
# PostgreSQL helpers
# ---------------------------------------------------------------------------
def pg_connect():
    """A connection to the admin database (CONFORMANCE_PG_URL)."""
    import psycopg2
    conn = psycopg2.connect(targets.PG_URL, connect_timeout=15)
    conn.autocommit = True
    return conn


def pg_exec(sql, retries=20):
    import psycopg2
    for attempt in range(retries):
        conn = pg_connect()
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
            return
        except psycopg2.errors.ObjectInUse:
            # "source database is being accessed by other users": another
            # CREATE DATABASE ... TEMPLATE is copying it; retry.
            if attempt == retries - 1:
                raise
            time.sleep(0.25)
        finally:
            conn.close()


def mysql_argv(*extra, client='mariadb'):
    """The mariadb (or mysql) client's command line for the admin URL."""
    import shutil
    from urllib import parse
    u = parse.urlsplit(targets.PG_URL)
    exe = shutil.which(client) or shutil.which(
        {'mariadb': 'mysql', 'mariadb-dump': 'mysqldump'}[client])
    if not exe:
        raise SystemExit('CONFORMANCE_DB_URL is a MySQL URL but neither %s '
                         'nor its mysql twin is installed' % client)
    argv = [exe, '-h', u.hostname or '127.0.0.1', '-P', str(u.port or 3306),
            '-u', parse.unquote(u.username or 'root')]
    if u.password:
        argv.append('-p' + parse.unquote(u.password))
    return argv + list(extra)


def mysql_exec(sql):
    out = subprocess.run(mysql_argv('-N', '-B', '-e', sql), check=True,
                         capture_output=True, text=True, timeout=120)
    return [ln for ln in out.stdout.splitlines() if ln.strip()]


def create_db(name, template=None):
    if targets.is_mysql():
        # MySQL has no CREATE DATABASE ... TEMPLATE: copy the template's
        # schema and rows with mariadb-dump.
        mysql_exec('CREATE DATABASE `%s` CHARACTER SET utf8mb4' % name)
        if template:
            dump = subprocess.run(
                mysql_argv('--single-transaction', '--skip-triggers',
                           '--no-create-db', template, client='mariadb-dump'),
                check=True, capture_output=True, timeout=300)
            subprocess.run(mysql_argv(name), input=dump.stdout, check=True,
                           capture_output=True, timeout=300)
        return
    if template:
        pg_exec('CREATE DATABASE "%s" TEMPLATE "%s"' % (name, template))
    else:
        pg_exec('CREATE DATABASE "%s"' % name)


def drop_db(name):
    if targets.is_mysql():
        mysql_exec('DROP DATABASE IF EXISTS `%s`' % name)
        return
    pg_exec('DROP DATABASE IF EXISTS "%s" WITH (FORCE)' % name)


def list_dbs(prefix):
    if targets.is_mysql():
        return mysql_exec("SHOW DATABASES LIKE '%s%%'"
                          % prefix.replace('_', r'\_'))
    conn = pg_connect()
    try:
        with conn.cursor() as cur:
            cur.execute('SELECT datname FROM pg_database WHERE datname LIKE %s',
                        (prefix.replace('_', r'\_') + '%',))
            return [r[0] for r in cur.fetchall()]
    finally:
        conn.close()


# ---------------------------------------------------------------------------
# Server process helpers
# ---------------------------------------------------------------------------
def port_is_free(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(('127.0.0.1', port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def listener_in_group(port, pgid):
    """Whether a process of process group ``pgid`` holds the socket that
    listens on TCP ``port`` (Linux /proc); None where that cannot be
    told."""
    inodes = set()
    readable = False
    for table in ('/proc/net/tcp', '/proc/net/tcp6'):
        try:
            with open(table) as fh:
                rows = fh.read().splitlines()[1:]
        except OSError:
            continue
        readable = True
        for row in rows:
            cols = row.split()
            if len(cols) < 10 or cols[3] != '0A':  # 0A: LISTEN
                continue
            try:
                if int(cols[1].rsplit(':', 1)[1], 16) == port:
                    inodes.add('socket:[%s]' % cols[9])
            except ValueError:
                continue
    if not readable:
        return None
    if not inodes:
        return False
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            if os.getpgid(int(entry)) != pgid:
                continue
            fd_dir = '/proc/%s/fd' % entry
            for fd in os.listdir(fd_dir):
                if os.readlink(os.path.join(fd_dir, fd)) in inodes:
                    return True
        except OSError:
            continue
    return False


def _clean_env(extra, runtime_dir):
    """The server's environment: ours, less anything that could configure
    the server behind the runner's back, plus ``extra``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('OS_', 'PLACEMENT_', 'DATABASE_URL',
                                'DJANGO_SETTINGS_MODULE'))}
    for k in ('http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY',
              'all_proxy', 'ALL_PROXY'):
        env.pop(k, None)
    # gunicorn >= 25 opens a control socket under $XDG_RUNTIME_DIR (else
    # ~/.gunicorn/gunicorn.ctl, shared by every gunicorn on the machine).
    env['XDG_RUNTIME_DIR'] = runtime_dir
    env.update(extra)
    return env


def _log_header(cmd):
    """The command line, cwd and contract environment, for the log."""
    lines = ['$ %s' % ' '.join(cmd.argv)]
    if cmd.cwd:
        lines.append('# cwd: %s' % cmd.cwd)
    for key in sorted(cmd.env):
        lines.append('# env: %s=%s' % (key, cmd.env[key]))
    return ('\n'.join(lines) + '\n').encode()


def run_command(cmd, log_path, timeout=300):
    runtime_dir = tempfile.mkdtemp(prefix='conf-rt-')
    try:
        with open(log_path, 'ab') as log:
            log.write(_log_header(cmd))
            log.flush()
            proc = subprocess.run(cmd.argv,
                                  env=_clean_env(cmd.env, runtime_dir),
                                  cwd=cmd.cwd, stdout=log,
                                  stderr=subprocess.STDOUT, timeout=timeout)
    finally:
        shutil.rmtree(runtime_dir, ignore_errors=True)
    if proc.returncode != 0:
        raise RuntimeError('command failed (rc=%s): %s; see %s'
                           % (proc.returncode, ' '.join(cmd.argv), log_path))


class Server(object):

    def __init__(self, cmd, port, log_path, start_timeout, pid_file=None,
                 stop_signal=signal.SIGTERM):
        self.pid_file = pid_file
        self.stop_signal = stop_signal
        self.cmd = cmd
        self.port = port
        self.log_path = log_path
        self.start_timeout = start_timeout
        self.proc = None
        self.runtime_dir = tempfile.mkdtemp(prefix='conf-rt-')

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.port

    def start(self):
        self.log = open(self.log_path, 'ab')
        self.log.write(_log_header(self.cmd))
        self.log.flush()
        self.proc = subprocess.Popen(
            self.cmd.argv, env=_clean_env(self.cmd.env, self.runtime_dir),
            cwd=self.cmd.cwd, stdout=self.log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)
        if self.pid_file:
            with open(self.pid_file, 'w') as fh:
                fh.write(str(self.proc.pid))
        self.wait_ready()

    def wait_ready(self):
        import httpx
        deadline = time.time() + self.start_timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError('server exited early (rc=%s); see %s'
                                   % (self.proc.returncode, self.log_path))
            try:
                httpx.get(self.url + '/', timeout=5, trust_env=False)
            except httpx.HTTPError:
                time.sleep(0.1)
                continue
            # Something answers; make sure it is our server and not another
            # process that took the port after it was probed free.
            if listener_in_group(self.port, self.proc.pid) is not False:
                return
            time.sleep(0.2)
        raise RuntimeError('server not answering on %s after %ss; see %s'
                           % (self.url, self.start_timeout, self.log_path))

    def _exited(self):
        """True once the leader has exited, *without reaping it*: while it
        is an unreaped zombie its pid, hence our process-group id, cannot be
        reused by anything else, so signalling the group stays safe."""
        if self.proc.returncode is not None:
            return True
        return os.waitid(os.P_PID, self.proc.pid,
                         os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None

    def stop(self, timeout=15):
        if self.proc is None:
            return
        pgid = self.proc.pid  # start_new_session: the group id is its pid
        if self.proc.returncode is None:
            try:
                os.killpg(pgid, self.stop_signal)
            except ProcessLookupError:
                pass
            deadline = time.time() + timeout
            while not self._exited() and time.time() < deadline:
                time.sleep(0.05)
            # Leader exited (not yet reaped) or timed out: kill whatever is
            # left of the group (e.g. a worker that outlived its master).
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait()
        self.proc = None
        self.log.close()
        shutil.rmtree(self.runtime_dir, ignore_errors=True)


# ---------------------------------------------------------------------------
# Worker: one gabbit file, in its own process.
# ---------------------------------------------------------------------------
class RecordingResult(unittest.TestResult):
    """Per-test outcomes, keyed by the test's position in the file (names
    are not always unique within a gabbit)."""

    def __init__(self, index_of):
        super(RecordingResult, self).__init__()
        self.index_of = index_of   # id(test) -> position
        self.records = {}
        self._started = {}

    def _key(self, test):
        return self.index_of.get(id(test), str(test))

    def startTest(self, test):
        super(RecordingResult, self).startTest(test)
        self._started[self._key(test)] = time.time()

    def _rec(self, test, status, message=''):
        key = self._key(test)
        prev = self.records.get(key)
        if prev and prev['status'] in ('error', 'fail'):
            return  # keep the first real failure (fixture errors + skips)
        took = time.time() - self._started.get(key, time.time())
        self.records[key] = {'status': status, 'message': message,
                             'time': round(took, 3)}

    @staticmethod
    def _msg(err):
        exc = err[1]
        text = str(exc) or exc.__class__.__name__
        if not isinstance(exc, AssertionError):
            text = '%s: %s' % (exc.__class__.__name__, text)
        return text[:6000]

    def addSuccess(self, test):
        self._rec(test, 'pass')

    def addFailure(self, test, err):
        self._rec(test, 'fail', self._msg(err))

    def addError(self, test, err):
        self._rec(test, 'error', self._msg(err))

    def addSkip(self, test, reason):
        if reason == 'fixture failure':
            # gabbi: the file's fixture raised; the first test carries the
            # error and every test is skipped.  None of them was judged, so
            # count them as errors, not skips.
            self._rec(test, 'error', 'not run: the fixture failed (see the '
                      'first test of the file)')
            return
        self._rec(test, 'skip', reason)

    def addExpectedFailure(self, test, err):
        self._rec(test, 'xfail', self._msg(err))

    def addUnexpectedSuccess(self, test):
        self._rec(test, 'fail', 'unexpected success (test marked xfail)')


def _test_names(suite_dict):
    return [t.get('name') for t in suite_dict.get('tests', [])]


class _SharedClientHttpx(object):
    """Stand-in for the ``httpx`` module inside gabbi.httpclient: gabbi
    builds one httpx.Client (with its own SSL context, ~50ms of CPU) per
    test at suite-construction time.  Against a live plain-HTTP server one
    shared client per option set behaves the same and is much cheaper."""

    def __init__(self, real):
        self._real = real
        self._clients = {}

    def __getattr__(self, name):
        return getattr(self._real, name)

    def Client(self, **kwargs):
        if kwargs.get('transport') is not None:
            return self._real.Client(**kwargs)
        key = tuple(sorted((k, repr(v)) for k, v in kwargs.items()))
        if key not in self._clients:
            self._clients[key] = self._real.Client(**kwargs)
        return self._clients[key]


def _raise_sigterm(signum, frame):
    raise KeyboardInterrupt('SIGTERM')


def worker_main(args):
    signal.signal(signal.SIGTERM, _raise_sigterm)
    from gabbi import handlers
    from gabbi import httpclient
    from gabbi import suitemaker
    from gabbi import utils as gabbi_utils
    httpclient.httpx = _SharedClientHttpx(httpclient.httpx)

    import http_fixtures

    target = targets.get_target(args.target, args.project_dir,
                                parse_server_env(args.server_env))
    path = args.gabbit
    fname = os.path.basename(path)
    result = {'file': fname, 'tests': [], 'setup_error': None,
              'port': args.port, 'db': args.db,
              'server_log': args.server_log}
    started = time.time()
    timings = result['timings'] = {}
    server = None
    db_created = False
    rec = suite_dict = None
    try:
        suite_dict = gabbi_utils.load_yaml(yaml_file=path, safe=True)
        fixture_names = suite_dict.get('fixtures') or []
        result['fixtures'] = fixture_names
        settings = http_fixtures.server_settings_for(fixture_names)
        settings['enforce_scope'] = True
        settings['policy_file'] = (args.open_policy_file
                                   if settings.pop('open_policy') else None)
        result['settings'] = settings

        t = time.time()
        create_db(args.db, template=args.template)
        db_created = True
        timings['create_db'] = round(time.time() - t, 2)
        t = time.time()
        server = Server(target.serve(args.db, args.port, settings), args.port,
                        args.server_log, target.start_timeout,
                        pid_file=args.pid_file,
                        stop_signal=target.stop_signal)
        server.start()
        timings['server_start'] = round(time.time() - t, 2)
        t = time.time()

        http_fixtures.BASE_URL = server.url
        handler_objects = [h() for h in handlers.RESPONSE_HANDLERS]
        loader = unittest.TestLoader()
        test_base_name = os.path.splitext(fname)[0]
        file_suite = suitemaker.test_suite_from_dict(
            loader, test_base_name, suite_dict, os.path.dirname(path),
            '127.0.0.1', args.port, http_fixtures, None, prefix='',
            handlers=handler_objects, test_loader_name='conformance')
        rec = RecordingResult(
            {id(case): i for i, case in enumerate(file_suite._tests)})
        file_suite.run(rec)
        timings['tests'] = round(time.time() - t, 2)
    except BaseException as exc:  # noqa: B902 - report everything
        result['setup_error'] = '%s: %s\n%s' % (
            exc.__class__.__name__, exc, traceback.format_exc()[-3000:])
    finally:
        # Cleanup must not be cut short by the orchestrator's SIGTERM.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if rec is not None:
            # (also after an interruption: keep what did run)
            for i, name in enumerate(_test_names(suite_dict)):
                r = rec.records.get(i) or {
                    'status': 'error', 'time': 0,
                    'message': 'test did not run' + (
                        ' (%s)' % result['setup_error'].splitlines()[0]
                        if result['setup_error'] else '')}
                entry = {'name': name}
                entry.update(r)
                result['tests'].append(entry)
        t = time.time()
        try:
            if server:
                server.stop()
                timings['server_stop'] = round(time.time() - t, 2)
        except Exception:
            result['setup_error'] = (result['setup_error'] or '') + (
                '\nstop failed: %s' % traceback.format_exc()[-2000:])
        try:
            if db_created and not args.keep_dbs:
                drop_db(args.db)
        except Exception:
            result['setup_error'] = (result['setup_error'] or '') + (
                '\ndrop failed: %s' % traceback.format_exc()[-2000:])
        result['duration'] = round(time.time() - started, 2)
        with open(args.out, 'w') as fh:
            json.dump(result, fh)
    return 0


# ---------------------------------------------------------------------------
# Orchestrator
# ---------------------------------------------------------------------------
def kill_group_members(pgid, marker=None):
    """SIGKILL each process whose process group is ``pgid`` (and, if given,
    whose command line contains ``marker``)."""
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            if os.getpgid(pid) != pgid:
                continue
            with open('/proc/%d/cmdline' % pid, 'rb') as fh:
                cmdline = fh.read().replace(b'\0', b' ').decode('utf-8',
                                                               'replace')
            if marker and marker not in cmdline:
                continue
            os.kill(pid, signal.SIGKILL)
        except (OSError, ValueError):
            continue


class PortPool(object):

    def __init__(self, ports):
        self.q = queue.Queue()
        for p in ports:
            self.q.put(p)

    def get(self):
        # Skip ports something else is listening on.
        for _ in range(len(PORTS) * 2):
            port = self.q.get()
            if port_is_free(port):
                return port
            self.q.put(port)
        raise RuntimeError('no free port in %s-%s (CONFORMANCE_PORT_RANGE)'
                           % (PORTS[0], PORTS[-1]))

    def put(self, port):
        self.q.put(port)


def parse_server_env(items):
    """["KEY=VALUE", ...] (--server-env) -> dict."""
    env = {}
    for item in items or []:
        key, sep, value = item.partition('=')
        if not sep or not key:
            raise SystemExit('--server-env wants KEY=VALUE, not %r' % item)
        env[key] = value
    return env


def prepare_template(target, name, run_dir, log):
    log_path = os.path.join(run_dir, 'template.log')
    drop_db(name)
    create_db(name)
    t0 = time.time()
    run_command(target.migrate(name), log_path)
    log('template %s migrated in %.1fs' % (name, time.time() - t0))
    if target.warm_template:
        settings = {'enforce_new_defaults': False, 'enforce_scope': True,
                    'policy_file': None, 'cors_allowed_origins': None,
                    'cors_allow_headers': None}
        free = [p for p in PORTS[::-1] if port_is_free(p)][:3]
        if not free:
            raise RuntimeError('no free port in %s-%s (CONFORMANCE_PORT_RANGE)'
                               % (PORTS[0], PORTS[-1]))
        for attempt, port in enumerate(free, 1):
            offset = os.path.getsize(log_path)
            server = Server(target.serve(name, port, settings), port,
                            log_path, target.start_timeout,
                            stop_signal=target.stop_signal)
            try:
                server.start()
                break
            except RuntimeError:
                with open(log_path, 'rb') as fh:
                    fh.seek(offset)
                    text = fh.read().decode('utf-8', 'replace')
                if attempt == len(free) or not any(
                        m in text for m in Orchestrator.PORT_CLASH_MARKERS):
                    raise
            finally:
                server.stop()
        log('template %s warmed (server start/stop) in %.1fs'
            % (name, time.time() - t0))


class Orchestrator(object):

    # A server that could not bind its port (something else took it between
    # the probe and the bind) is retried on another port.
    PORT_CLASH_MARKERS = ('Connection in use', 'Address already in use')
    PORT_TRIES = 3

    def __init__(self, args):
        self.args = args
        self.server_env = parse_server_env(args.server_env)
        self.target = targets.get_target(args.target, args.project_dir,
                                         self.server_env)
        self.run_id = '%s_%d' % (args.target, os.getpid())
        self.db_prefix = '%s%s_' % (DB_PREFIX, self.run_id)
        self.template = self.db_prefix + 'tmpl'
        stamp = datetime.datetime.now().strftime('%Y%m%d-%H%M%S')
        self.run_dir = os.path.abspath(args.log_dir or os.path.join(
            tempfile.gettempdir(),
            'conformance-%s-%s-%d' % (args.target, stamp, os.getpid())))
        os.makedirs(self.run_dir, exist_ok=True)
        self.ports = PortPool(PORTS)
        self.lock = threading.Lock()
        self.workers = {}
        self.stopping = False
        self.counter = 0
        self.excluded_files = exclusions.files_for(
            args.target, not args.no_exclusions)
        self.excluded_tests = exclusions.tests_for(
            args.target, not args.no_exclusions)

    def log(self, msg):
        with self.lock:
            sys.stderr.write('[conformance] %s\n' % msg)
            sys.stderr.flush()

    def run_file(self, path):
        fname = os.path.basename(path)
        if fname in self.excluded_files:
            return self._excluded_file(path, self.excluded_files[fname])
        for attempt in range(1, self.PORT_TRIES + 1):
            if self.stopping:
                return None
            result, clash = self._run_file_once(path)
            if clash and attempt < self.PORT_TRIES:
                self.log('%s: port %s was taken by another process; '
                         'retrying on another port' % (fname, result['port']))
                continue
            break
        self._apply_test_exclusions(result)
        self._fill_missing(path, result)
        self.log('%-48s %s' % (fname, file_line(result)))
        return result

    def _run_file_once(self, path):
        fname = os.path.basename(path)
        with self.lock:
            self.counter += 1
            idx = self.counter
        port = self.ports.get()
        stem = os.path.splitext(fname)[0]
        out = os.path.join(self.run_dir, '%s.result.json' % stem)
        pid_file = os.path.join(self.run_dir, '%s.server.pid' % stem)
        server_log = os.path.join(self.run_dir, '%s.server.log' % stem)
        worker_log = os.path.join(self.run_dir, '%s.worker.log' % stem)
        try:
            log_offset = os.path.getsize(server_log)
        except OSError:
            log_offset = 0
        for stale in (out, pid_file):
            try:
                os.unlink(stale)
            except OSError:
                pass
        argv = [sys.executable, os.path.abspath(__file__), '--worker',
                '--target', self.args.target, '--gabbit', path,
                '--db', '%s%d' % (self.db_prefix, idx),
                '--template', self.template, '--port', str(port),
                '--out', out, '--pid-file', pid_file,
                '--open-policy-file', self.args.open_policy_file,
                '--server-log', server_log,
                '--project-dir', self.target.project_dir]
        for item in self.args.server_env or []:
            argv += ['--server-env', item]
        if self.args.keep_dbs:
            argv.append('--keep-dbs')
        timed_out = False
        try:
            # gabbi's verbose output (stdout) and tracebacks (stderr)
            with open(worker_log, 'ab') as wlog:
                proc = subprocess.Popen(argv, start_new_session=True,
                                        stdin=subprocess.DEVNULL,
                                        stdout=wlog,
                                        stderr=subprocess.STDOUT)
            with self.lock:
                self.workers[proc.pid] = (proc, pid_file, port)
            try:
                proc.wait(timeout=self.args.file_timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                self.log('%s: timed out after %ss, stopping it'
                         % (fname, self.args.file_timeout))
                self._kill_worker(proc, pid_file, port)
            with self.lock:
                self.workers.pop(proc.pid, None)
        finally:
            self.ports.put(port)
        try:
            with open(out) as fh:
                result = json.load(fh)
        except (OSError, ValueError):
            result = {'file': fname, 'tests': [], 'duration': None,
                      'port': port,
                      'setup_error': 'worker produced no result (see %s)'
                      % worker_log}
        if timed_out:
            result['setup_error'] = 'file timed out after %ss; %s' % (
                self.args.file_timeout, result.get('setup_error') or '')
        clash = False
        if (result.get('setup_error') or '').startswith(
                'RuntimeError: server exited early'):
            try:
                with open(server_log, 'rb') as fh:
                    fh.seek(log_offset)
                    text = fh.read().decode('utf-8', 'replace')
                clash = any(m in text for m in self.PORT_CLASH_MARKERS)
            except OSError:
                pass
        return result, clash

    def _kill_worker(self, proc, pid_file, port):
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            # The server lives in its own session and its parent is gone:
            # kill the processes of its group, checking each really is our
            # server (the group id could in theory have been reused).
            try:
                with open(pid_file) as fh:
                    spid = int(fh.read().strip() or 0)
            except (OSError, ValueError):
                spid = 0
            if spid:
                kill_group_members(spid, '127.0.0.1:%d' % port)

    def _excluded_file(self, path, reason):
        from gabbi import utils as gabbi_utils
        suite_dict = gabbi_utils.load_yaml(yaml_file=path, safe=True)
        result = {'file': os.path.basename(path), 'excluded': reason,
                  'setup_error': None, 'duration': 0,
                  'fixtures': suite_dict.get('fixtures'),
                  'tests': [{'name': n, 'status': 'excluded',
                             'actual': None, 'message': reason}
                            for n in _test_names(suite_dict)]}
        self.log('%-48s %s' % (result['file'], file_line(result)))
        return result

    def _apply_test_exclusions(self, result):
        for t in result.get('tests', []):
            reason = self.excluded_tests.get((result['file'], t['name']))
            if reason:
                t['actual'] = t['status']
                t['actual_message'] = t.get('message')
                t['status'] = 'excluded'
                t['message'] = reason

    @staticmethod
    def _fill_missing(path, result):
        """A setup error before gabbi ran: count every test as an error."""
        if result.get('tests'):
            return
        try:
            from gabbi import utils as gabbi_utils
            names = _test_names(gabbi_utils.load_yaml(yaml_file=path,
                                                      safe=True))
        except Exception:
            names = []
        msg = (result.get('setup_error') or 'no result').splitlines()[0]
        result['tests'] = [{'name': n, 'status': 'error',
                            'message': 'setup: ' + msg} for n in names]

    def drop_stale(self):
        """Drop databases left by runs that died (SIGKILL): names
        conf_<target>_<pid>_* whose pid is no longer running."""
        import re
        pat = re.compile(r'^%s(?:%s)_(\d+)_' % (
            DB_PREFIX, '|'.join(map(re.escape, targets.TARGETS))))
        for name in list_dbs(DB_PREFIX):
            m = pat.match(name)
            if not m or int(m.group(1)) == os.getpid():
                continue
            try:
                os.kill(int(m.group(1)), 0)
                continue  # still running
            except ProcessLookupError:
                pass
            except PermissionError:
                continue
            self.log('dropping stale database %s' % name)
            try:
                drop_db(name)
            except Exception as exc:
                self.log('could not drop %s: %s' % (name, exc))

    def cleanup(self):
        if self.args.keep_dbs and not self.stopping:
            names = list_dbs(self.db_prefix)
            self.log('--keep-dbs: kept %d databases (%s*); the next run '
                     'drops them' % (len(names), self.db_prefix))
            return
        for name in list_dbs(self.db_prefix):
            try:
                drop_db(name)
            except Exception as exc:
                self.log('could not drop %s: %s' % (name, exc))

    def run(self, files):
        t0 = time.time()
        self.log('target %s; %d files; jobs=%d; ports %d-%d; logs in %s' % (
            self.target.describe(), len(files), self.args.jobs,
            PORTS[0], PORTS[-1], self.run_dir))
        results = []
        pool = None
        try:
            self.drop_stale()
            prepare_template(self.target, self.template, self.run_dir,
                             self.log)
            pool = futures.ThreadPoolExecutor(self.args.jobs)
            futs = [pool.submit(self.run_file, f) for f in files]
            for fut in futs:
                r = fut.result()
                if r is not None:
                    results.append(r)
        except KeyboardInterrupt:
            self.stopping = True
            self.log('interrupted; stopping workers')
            with self.lock:
                workers = list(self.workers.values())
            for proc, pid_file, port in workers:
                self._kill_worker(proc, pid_file, port)
            raise
        finally:
            if pool:
                pool.shutdown(wait=True, cancel_futures=True)
            self.cleanup()
        return results, time.time() - t0


# ---------------------------------------------------------------------------
# Reporting
# ---------------------------------------------------------------------------
PASSED = ('pass', 'xfail')
SKIPPED = ('skip', 'excluded')


def counts(tests):
    c = {'passed': 0, 'failed': 0, 'errors': 0, 'skipped': 0}
    for t in tests:
        s = t['status']
        if s in PASSED:
            c['passed'] += 1
        elif s == 'fail':
            c['failed'] += 1
        elif s == 'error':
            c['errors'] += 1
        elif s in SKIPPED:
            c['skipped'] += 1
    return c


def short(msg, limit=160):
    msg = ' '.join((msg or '').split())
    return msg if len(msg) <= limit else msg[:limit - 3] + '...'


def file_line(result):
    tests = result.get('tests', [])
    c = counts(tests)
    total = len(tests)
    line = '%d/%d' % (c['passed'], total)
    if result.get('excluded'):
        return line + '  EXCLUDED: ' + short(result['excluded'], 120)
    extra = []
    if c['skipped']:
        extra.append('skipped=%d' % c['skipped'])
    if result.get('duration') is not None:
        extra.append('%.1fs' % result['duration'])
    if extra:
        line += '  (' + ', '.join(extra) + ')'
    first = next((t for t in tests if t['status'] in ('fail', 'error')), None)
    if first:
        line += '  FIRST %s: %s: %s' % (first['status'].upper(),
                                       first['name'], short(first['message']))
    elif result.get('setup_error'):
        line += '  SETUP: ' + short(result['setup_error'].splitlines()[0])
    return line


def summarize(results, wall, args, run_dir):
    results = sorted(results, key=lambda r: r['file'])
    total = {'passed': 0, 'failed': 0, 'errors': 0, 'skipped': 0}
    print('')
    print('Conformance target=%s  (logs: %s)' % (args.target, run_dir))
    actual = {}
    for r in results:
        c = counts(r.get('tests', []))
        for k in total:
            total[k] += c[k]
        print('%-48s %s' % (r['file'], file_line(r)))
        for t in r.get('tests', []):
            if t['status'] == 'excluded':
                a = t.get('actual') or 'not run'
                actual[a] = actual.get(a, 0) + 1
    if actual:
        print('excluded tests (counted as skipped): %d; their actual '
              'outcomes: %s  (see exclusions.py, --no-exclusions)' % (
                  sum(actual.values()),
                  ', '.join('%s=%d' % kv for kv in sorted(actual.items()))))
    print('wall time: %.1fs' % wall)
    line = ('CONFORMANCE passed=%d failed=%d errors=%d skipped=%d files=%d'
            % (total['passed'], total['failed'], total['errors'],
               total['skipped'], len(results)))
    print(line)
    sys.stdout.flush()
    return total


def write_json(path, results, total, wall, args, run_dir, judgement=None):
    results = sorted(results, key=lambda r: r['file'])
    doc = {'target': args.target,
           'project_dir': args.project_dir,
           'started': args.started,
           'wall_time': round(wall, 2),
           'jobs': args.jobs,
           'log_dir': run_dir,
           'totals': dict(total, files=len(results)),
           'exclusions': {
               'files': exclusions.files_for(args.target,
                                             not args.no_exclusions),
               'tests': ['%s :: %s :: %s' % (f, n, why) for (f, n), why
                         in sorted(exclusions.tests_for(
                             args.target, not args.no_exclusions).items())]},
           'files': results}
    if judgement is not None:
        doc['known_failures'] = {
            'file': args.known_failures,
            'ok': judgement['ok'],
            'new_failures': [known_failures.key_str(k) for k, _, _
                             in judgement['new_failures']],
            'now_passing': [known_failures.key_str(k)
                            for k in judgement['now_passing']],
            'stale': [known_failures.key_str(k) for k in judgement['stale']],
            'still_failing': [known_failures.key_str(k)
                              for k in judgement['still_failing']],
            'not_judged': [known_failures.key_str(k)
                           for k in judgement['not_judged']],
            'not_run': [known_failures.key_str(k)
                        for k in judgement['not_run']],
        }
    with open(path, 'w') as fh:
        json.dump(doc, fh, indent=1)


def compare(results, baseline_path, limit=60):
    """Print tests whose pass/not-pass state differs from a --json file of
    an earlier run."""
    with open(baseline_path) as fh:
        base = json.load(fh)

    def passing(files):
        out = {}
        for f in files:
            for i, t in enumerate(f.get('tests', [])):
                out[(f['file'], i, t['name'])] = t['status']
        return out
    old, new = passing(base['files']), passing(results)
    common = sorted(set(old) & set(new))
    lost = [k for k in common if old[k] in PASSED and new[k] not in PASSED
            and new[k] != 'excluded']
    gained = [k for k in common if old[k] not in PASSED and new[k] in PASSED]
    print('')
    print('compared with %s: %d tests passing there fail here, %d failing '
          'there pass here' % (baseline_path, len(lost), len(gained)))
    for f, i, name in lost[:limit]:
        print('  LOST  %s :: %s (%s)' % (f, name, new[(f, i, name)]))
    if len(lost) > limit:
        print('  ... %d more' % (len(lost) - limit))
    for f, i, name in gained[:limit]:
        print('  GAINED %s :: %s' % (f, name))
    if len(gained) > limit:
        print('  ... %d more' % (len(gained) - limit))


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
                   default='project', help=argparse.SUPPRESS)
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
    signal.signal(signal.SIGTERM, _raise_sigterm)
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
