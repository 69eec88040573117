"""Worker: one gabbit file, in its own process (``run.py --worker``).

Copies the template database, starts the server with the settings the
file's fixtures need, runs the file with gabbi against it and writes the
per-test outcomes as JSON for the orchestrator."""

import json
import os
import signal
import time
import traceback
import unittest

import targets
from databases import create_db, drop_db
from servers import Server, parse_server_env


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


def test_names(suite_dict):
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


def raise_sigterm(signum, frame):
    raise KeyboardInterrupt('SIGTERM')


def worker_main(args):
    signal.signal(signal.SIGTERM, raise_sigterm)
    from gabbi import handlers
    from gabbi import httpclient
    from gabbi import suitemaker
    from gabbi import utils as gabbi_utils
    httpclient.httpx = _SharedClientHttpx(httpclient.httpx)

    import fixture_api
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

        fixture_api.BASE_URL = server.url
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
            for i, name in enumerate(test_names(suite_dict)):
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
