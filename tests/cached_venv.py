"""Throwaway virtualenvs for the integration tests, built once and cached.

``cached_venv("placement-keystone", ["requirements.txt", ...])`` returns
``${XDG_CACHE_HOME:-~/.cache}/placement-keystone/venv-<hash>``, where the
hash covers the requirement files and the Python version, so a change to
either builds a fresh one.  A venv whose install did not finish (no
``.complete`` marker) is thrown away and built again.  Builds hold an
exclusive lock (``venv-<hash>.lock`` beside it), so two test runs started
at once (CI runs several steps side by side) build it once: the second
waits, then finds it complete.
"""
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]


def venv_path(name, requirement_files):
    digest = hashlib.sha256()
    for filename in requirement_files:
        digest.update((PROJECT_DIR / filename).read_bytes())
    digest.update(sys.version.encode())
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / name / f"venv-{digest.hexdigest()[:16]}"


def cached_venv(name, requirement_files, log=None):
    venv = venv_path(name, requirement_files)
    marker = venv / ".complete"
    if marker.exists():
        return venv
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f"{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists():  # built by another run while this one waited
            return venv
        return _build(venv, requirement_files, log)


def _build(venv, requirement_files, log):
    marker = venv / ".complete"
    if venv.exists():
        shutil.rmtree(venv)
    if log is not None:
        log(f"building {venv}")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    requirements = []
    for filename in requirement_files:
        requirements += ["-r", str(PROJECT_DIR / filename)]
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--disable-pip-version-check", "-q", *requirements],
        check=True,
    )
    marker.write_text("ok\n")
    return venv
