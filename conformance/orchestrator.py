"""The orchestrator: one migrated template database per run, then every
gabbit file in a worker subprocess (``--jobs`` at once), with a port from
the pool; stops workers on timeout or interruption and drops the
databases."""

import datetime
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent import futures

import exclusions
import targets
from databases import DB_PREFIX, create_db, drop_db, list_dbs
from report import file_line
from servers import (PORTS, PortPool, Server, kill_group_members,
                     parse_server_env, port_is_free, run_command)
from worker import test_names

HERE = os.path.dirname(os.path.abspath(__file__))
# Workers run the runner's own entry point with --worker.
RUN_PY = os.path.join(HERE, 'run.py')


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
        argv = [sys.executable, RUN_PY, '--worker',
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
                            for n in test_names(suite_dict)]}
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
            names = test_names(gabbi_utils.load_yaml(yaml_file=path,
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
