"""Throwaway virtualenvs for the integration tests, built once and cached.

``cached_venv("placement-keystone", ["requirements.txt", ...])`` returns
``${XDG_CACHE_HOME:-~/.cache}/placement-keystone/venv-<hash>``, where the
hash covers the requirement files and the Python version, so a change to
either builds a fresh one.  A venv whose install did not finish (no
``.complete`` marker) is thrown away and built again.
"""
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
    if venv.exists():
        shutil.rmtree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
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
