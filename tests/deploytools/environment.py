"""One virtualenv with the wheel installed alone (pip, no requirements.txt)
and uWSGI, made from /usr/bin/python3.11 (the Python Debian's mod_wsgi is
built for), shared by every layout and cached between runs.

The cache lives in PLACEMENT_DEPLOYTOOLS_CACHE (default
/var/tmp/placement-deploytools: Apache's www-data must read it, so not
under /root).  Its key covers the declared dependencies and the Python;
the wheel itself is reinstalled (--no-deps) on every run.
"""
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = os.environ.get("PLACEMENT_DEPLOYTOOLS_PYTHON", "/usr/bin/python3.11")
CACHE = Path(os.environ.get("PLACEMENT_DEPLOYTOOLS_CACHE", "/var/tmp/placement-deploytools"))


def build_wheel(work: Path) -> Path:
    source = work / "project"
    shutil.copytree(PROJECT, source, ignore=shutil.ignore_patterns(
        ".venv", ".git", "tests", "__pycache__", "build", "dist", "*.egg-info", "*.sqlite3",
        "docs", "benchmarks", "conformance"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--disable-pip-version-check", "-q",
                    "--no-deps", "-w", str(work / "dist"), str(source)], check=True)
    (wheel,) = (work / "dist").glob("placement_django-*.whl")
    return wheel


def _key() -> str:
    digest = hashlib.sha256()
    pyproject = tomllib.loads((PROJECT / "pyproject.toml").read_text())
    digest.update("\n".join(pyproject["project"]["dependencies"]).encode())
    digest.update(subprocess.run([SYSTEM_PYTHON, "-c", "import sys; print(sys.version)"],
                                 capture_output=True, text=True, check=True).stdout.encode())
    return digest.hexdigest()[:16]


def pip(venv: Path, *args):
    return subprocess.run([str(venv / "bin" / "python"), "-m", "pip",
                           "--disable-pip-version-check", "-q", *args],
                          check=True, capture_output=True, text=True)


def installed_venv(wheel: Path, log=print) -> Path:
    """The shared virtualenv with ``wheel`` (and its dependencies) and uWSGI."""
    CACHE.mkdir(parents=True, exist_ok=True)
    os.chmod(CACHE, 0o755)
    venv = CACHE / f"venv-{_key()}"
    with open(CACHE / f"{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / ".complete").exists():
            if venv.exists():
                shutil.rmtree(venv)
            log(f"building {venv} (the wheel, its dependencies, uWSGI)")
            subprocess.run([SYSTEM_PYTHON, "-m", "venv", str(venv)], check=True)
            # wheel first: pip then builds uWSGI's sdist into a wheel it
            # caches, so the next virtualenv does not compile it again.
            pip(venv, "install", "wheel")
            pip(venv, "install", str(wheel), "uwsgi")
            (venv / ".complete").write_text("ok\n")
        pip(venv, "install", "--no-deps", "--force-reinstall", str(wheel))
        pip(venv, "check")
    return venv


def work_directory() -> Path:
    """A directory Apache's www-data can read (pytest's tmp_path is 0700)."""
    path = Path(tempfile.mkdtemp(prefix="placement-deploytools-",
                                 dir=os.environ.get("TMPDIR") or "/tmp"))
    os.chmod(path, 0o755)
    return path
