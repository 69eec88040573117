"""Known-failures list: the tests the project does not pass yet.

File format: one ``file.yaml::test name`` per line (the test name exactly as
written in the gabbit's ``name:``); ``#`` starts a comment line; blank lines
are ignored.

Judging a run against the list (``run --known-failures FILE``) finds

* new failures: tests that failed or errored and are not listed;
* now passing: listed tests that passed (their lines must go, so the list
  only shrinks and stays true);
* stale entries: listed names that match no test of a file this run ran,
  or that name a file which is not in the gabbits directory at all.

Entries for gabbit files that exist but were not selected for this run
(``--files``, ``--list``) are not judged.  A listed test that was neither
passed nor failed (excluded, skipped) is not judged either.

A test name can occur more than once in a file; an entry covers every test
of that name, and counts as failing when any of them fails.
"""

import datetime
import os

FAILED = ('fail', 'error')
PASSED = ('pass', 'xfail')
SEP = '::'


class FormatError(Exception):
    pass


def key_str(key):
    return '%s%s%s' % (key[0], SEP, key[1])


def parse(path):
    """Return the entries of a known-failures file as an ordered list of
    unique (file, test name) pairs.  Raises FormatError on a bad line."""
    entries = []
    seen = set()
    problems = []
    with open(path, encoding='utf-8') as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.strip()
            if not line or line.startswith('#'):
                continue
            if SEP not in line:
                problems.append('%s:%d: expected "file.yaml%stest name", '
                                'got %r' % (path, lineno, SEP, line))
                continue
            fname, name = line.split(SEP, 1)
            fname, name = fname.strip(), name.strip()
            if not fname or not name:
                problems.append('%s:%d: empty file or test name: %r'
                                % (path, lineno, line))
                continue
            key = (fname, name)
            if key in seen:
                continue  # a repeated line changes nothing
            seen.add(key)
            entries.append(key)
    if problems:
        raise FormatError('\n'.join(problems))
    return entries


def _statuses(results):
    """(file, name) -> list of statuses, in run order."""
    out = {}
    for r in sorted(results, key=lambda r: r['file']):
        for t in r.get('tests', []):
            out.setdefault((r['file'], t['name']), []).append(t['status'])
    return out


def failing_tests(results):
    """Failing (file, name) pairs in file order, then test order, with the
    first failing test's status and message."""
    out = []
    seen = set()
    for r in sorted(results, key=lambda r: r['file']):
        for t in r.get('tests', []):
            key = (r['file'], t['name'])
            if t['status'] in FAILED and key not in seen:
                seen.add(key)
                out.append((key, t['status'], t.get('message') or ''))
    return out


def judge(results, entries, available_files):
    """Compare a run's results with the listed entries.

    ``available_files``: the basenames of every gabbit file that could have
    been run (the gabbits directory).  Returns a dict of lists of keys."""
    statuses = _statuses(results)
    ran_files = set(r['file'] for r in results)
    listed = set(entries)
    failing = failing_tests(results)
    failing_keys = set(k for k, _, _ in failing)
    j = {'new_failures': [], 'now_passing': [], 'stale': [],
         'still_failing': [], 'not_judged': [], 'not_run': []}
    for key, status, msg in failing:
        if key not in listed:
            j['new_failures'].append((key, status, msg))
    for key in entries:
        fname = key[0]
        if key in failing_keys:
            j['still_failing'].append(key)
        elif key in statuses:
            if all(s in PASSED for s in statuses[key]):
                j['now_passing'].append(key)
            else:
                j['not_judged'].append(key)
        elif fname in ran_files or fname not in available_files:
            j['stale'].append(key)
        else:
            j['not_run'].append(key)
    j['ok'] = not (j['new_failures'] or j['now_passing'] or j['stale'])
    return j


def _short(msg, limit=140):
    msg = ' '.join((msg or '').split())
    return msg if len(msg) <= limit else msg[:limit - 3] + '...'


def report(j, path, out, limit=500):
    """Print the judgement; the last line is the verdict."""
    w = out.write
    listed = (len(j['still_failing']) + len(j['now_passing'])
              + len(j['stale']) + len(j['not_judged']) + len(j['not_run']))
    w('\nknown failures (%s): %d listed: %d still fail, %d now pass, '
      '%d stale, %d not judged, %d in files not run\n' % (
          path, listed, len(j['still_failing']), len(j['now_passing']),
          len(j['stale']), len(j['not_judged']), len(j['not_run'])))
    if j['new_failures']:
        w('\nNEW FAILURES: %d failing tests are not listed in %s '
          '(fix them; list them only if you mean to):\n'
          % (len(j['new_failures']), path))
        for key, status, msg in j['new_failures'][:limit]:
            w('  %s  [%s] %s\n' % (key_str(key), status, _short(msg)))
        if len(j['new_failures']) > limit:
            w('  ... %d more (see --json)\n' % (len(j['new_failures']) - limit))
    if j['now_passing']:
        w('\nNOW PASSING: %d listed tests pass now; remove these lines '
          'from %s:\n' % (len(j['now_passing']), path))
        for key in j['now_passing']:
            w('  %s\n' % key_str(key))
    if j['stale']:
        w('\nSTALE: %d listed entries match no test in this run; remove '
          'or correct these lines in %s:\n' % (len(j['stale']), path))
        for key in j['stale']:
            w('  %s\n' % key_str(key))
    if j['not_judged']:
        w('\n(not judged: %d listed tests were skipped or excluded this '
          'run)\n' % len(j['not_judged']))
    if j['ok']:
        w('KNOWN-FAILURES OK: no new failures, %d known failures still '
          'fail\n' % len(j['still_failing']))
    else:
        w('KNOWN-FAILURES FAILED: %d new failures, %d now passing, '
          '%d stale entries (see above)\n' % (
              len(j['new_failures']), len(j['now_passing']),
              len(j['stale'])))


def write(path, results, carried=()):
    """Write the run's failing tests (plus ``carried`` entries, kept from an
    earlier list for files this run did not judge) to ``path``."""
    failing = failing_tests(results)
    tests_per_file = {r['file']: len(r.get('tests', [])) for r in results}
    by_file = {}
    for key, _, _ in failing:
        by_file.setdefault(key[0], []).append(key[1])
    failing_keys = set(k for k, _, _ in failing)
    carried_by_file = {}
    for fname, name in carried:
        if (fname, name) not in failing_keys:
            carried_by_file.setdefault(fname, []).append(name)
    stamp = datetime.datetime.now().isoformat(timespec='seconds')
    total = len(failing) + sum(len(v) for v in carried_by_file.values())
    lines = [
        '# Conformance tests the project does not pass yet, one',
        '# "file.yaml::test name" per line.  Checked by',
        '#   make conformance  (conformance/run --known-failures <this file>)',
        '# which fails when a test fails that is not listed here, and when',
        '# a listed test passes (then delete its line).  Only ever shrink it.',
        '# Written %s by --write-known-failures from a run of %d files: '
        '%d tests.' % (stamp, len(results), total),
    ]
    for fname in sorted(set(by_file) | set(carried_by_file)):
        lines.append('')
        if fname in by_file:
            lines.append('# %s: %d of %d tests fail' % (
                fname, len(by_file[fname]), tests_per_file.get(fname, 0)))
        else:
            lines.append('# %s: not run when this list was written; kept'
                         % fname)
        for name in by_file.get(fname, []) + carried_by_file.get(fname, []):
            lines.append('%s%s%s' % (fname, SEP, name))
    tmp = '%s.tmp.%d' % (path, os.getpid())
    with open(tmp, 'w', encoding='utf-8') as fh:
        fh.write('\n'.join(lines) + '\n')
    os.replace(tmp, path)
    return total
