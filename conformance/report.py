"""The result reporting: counts, the per-file lines, the closing
CONFORMANCE line, the --json document and the --baseline comparison."""

import json
import sys

import exclusions
import known_failures

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
