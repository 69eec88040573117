"""Upstream's gabbi files, fetched from the published package and cached.

The YAML files are not part of this repository.  They come from the
``openstack-placement`` release pinned below, downloaded once with pip
(wheel or sdist, whichever pip picks), checked file by file against the
sha256 list beside this module (``gabbits-<version>.sha256``), and kept in

    ${CONFORMANCE_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/placement-conformance}/gabbits-<version>/

Later runs check the cached files against the list again (a few
milliseconds) and download nothing.  The list names the files the suite
runs; the release has a few more, which are left out (see README.md).
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

PACKAGE = 'openstack-placement'
VERSION = '16.0.0'
HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, 'gabbits-%s.sha256' % VERSION)
# Where the files sit inside the wheel (placement/...) or the sdist
# (openstack_placement-16.0.0/placement/...).
MEMBER = re.compile(r'(?:^|/)placement/tests/functional/gabbits/'
                    r'([^/]+\.yaml)$')


class FetchError(Exception):
    pass


def cache_root():
    explicit = os.environ.get('CONFORMANCE_CACHE_DIR')
    if explicit:
        return explicit
    base = (os.environ.get('XDG_CACHE_HOME')
            or os.path.join(os.path.expanduser('~'), '.cache'))
    return os.path.join(base, 'placement-conformance')


def read_manifest(path=MANIFEST):
    """{file name: sha256} from a ``sha256sum``-style list."""
    wanted = {}
    with open(path, encoding='utf-8') as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.strip()
            if not line or line.startswith('#'):
                continue
            digest, _, name = line.partition('  ')
            if len(digest) != 64 or not name or '/' in name:
                raise FetchError('%s:%d: expected "<sha256>  <name>.yaml", '
                                 'got %r' % (path, lineno, line))
            wanted[name] = digest
    if not wanted:
        raise FetchError('%s lists no files' % path)
    return wanted


def _sha256(data):
    return hashlib.sha256(data).hexdigest()


def problems_in(directory, wanted):
    """What is wrong with a directory of gabbits: missing files, files
    whose content differs from the list, files the list does not name."""
    problems = []
    try:
        present = set(f for f in os.listdir(directory) if f.endswith('.yaml'))
    except OSError:
        return ['no directory %s' % directory]
    for name, digest in sorted(wanted.items()):
        if name not in present:
            problems.append('missing %s' % name)
            continue
        with open(os.path.join(directory, name), 'rb') as fh:
            if _sha256(fh.read()) != digest:
                problems.append('%s differs from the pinned sha256' % name)
    for name in sorted(present - set(wanted)):
        problems.append('unexpected %s' % name)
    return problems


def _members(archive):
    """(gabbit name, bytes) for every gabbit file in a wheel or sdist."""
    if archive.endswith(('.whl', '.zip')):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                m = MEMBER.search(info.filename)
                if m and not info.is_dir():
                    yield m.group(1), zf.read(info)
    elif archive.endswith(('.tar.gz', '.tgz', '.tar')):
        with tarfile.open(archive) as tf:
            for info in tf:
                m = MEMBER.search(info.name)
                if m and info.isfile():
                    yield m.group(1), tf.extractfile(info).read()
    else:
        raise FetchError('pip saved %s, neither a wheel nor an sdist'
                         % os.path.basename(archive))


def extract(archive, wanted, dest):
    """Write the listed gabbit files of ``archive`` into ``dest`` (an empty
    directory), checking each against its sha256."""
    found = {}
    for name, data in _members(archive):
        if name in wanted:
            found[name] = data
    problems = ['%s is not in %s' % (n, os.path.basename(archive))
                for n in sorted(set(wanted) - set(found))]
    problems += ['%s in %s differs from the pinned sha256'
                 % (n, os.path.basename(archive))
                 for n in sorted(found) if _sha256(found[n]) != wanted[n]]
    if problems:
        raise FetchError('; '.join(problems))
    for name, data in found.items():
        with open(os.path.join(dest, name), 'wb') as fh:
            fh.write(data)


def download(into, python=None):
    """``pip download`` the pinned release into ``into``; its path."""
    argv = [python or sys.executable, '-m', 'pip', 'download', '--no-deps',
            '--no-input', '--disable-pip-version-check', '--quiet',
            '--dest', into, '%s==%s' % (PACKAGE, VERSION)]
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ['no output'])[-1]
        raise FetchError('pip download %s==%s failed (rc=%d): %s'
                         % (PACKAGE, VERSION, proc.returncode, last))
    saved = [f for f in os.listdir(into) if not f.startswith('.')]
    if len(saved) != 1:
        raise FetchError('pip download left %r, expected one archive'
                         % sorted(saved))
    return os.path.join(into, saved[0])


def ensure(root=None, log=None, fetch=download, manifest=MANIFEST):
    """The directory of the pinned gabbit files, fetched if the cache does
    not hold a complete, unchanged copy."""
    root = root or cache_root()
    wanted = read_manifest(manifest)
    final = os.path.join(root, 'gabbits-%s' % VERSION)
    if os.path.isdir(final) and not problems_in(final, wanted):
        return final
    os.makedirs(root, exist_ok=True)
    build = tempfile.mkdtemp(prefix='.gabbits-', dir=root)
    try:
        if log:
            log('fetching %d gabbi files from %s==%s into %s (once)'
                % (len(wanted), PACKAGE, VERSION, final))
        download_dir = os.path.join(build, 'download')
        files_dir = os.path.join(build, 'gabbits')
        os.mkdir(download_dir)
        os.mkdir(files_dir)
        extract(fetch(download_dir), wanted, files_dir)
        # Replace a broken copy; if another run put a good one in place
        # meanwhile, keep theirs.
        if os.path.isdir(final) and problems_in(final, wanted):
            shutil.rmtree(final)
        try:
            os.rename(files_dir, final)
        except OSError:
            if problems_in(final, wanted):
                raise
    finally:
        shutil.rmtree(build, ignore_errors=True)
    return final
