"""No module outside tests and migrations is longer than 600 lines.

A module that long does more than one job; split it by job instead (see
conformance/run.py and its neighbours for an example). The files are the
.py files git tracks, so a stray local file does not count.
"""
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 600

# path -> why it may stay longer for now. Keep it empty; an entry needs a
# reason and goes as soon as the file is split.
KNOWN_EXCEPTIONS: dict = {}


def _tracked_modules() -> list:
    out = subprocess.run(["git", "ls-files", "-z", "--", "*.py"], cwd=ROOT,
                         check=True, capture_output=True).stdout
    paths = [p for p in out.decode().split("\0") if p]
    return [p for p in paths
            if not p.startswith("tests/") and "migrations" not in Path(p).parts[:-1]]


def oversized(root: Path, paths) -> dict:
    """path -> line count, for each of ``paths`` (relative to ``root``)
    longer than LIMIT lines."""
    found = {}
    for path in paths:
        file = root / path
        if not file.is_file():  # deleted in the working tree
            continue
        count = len(file.read_text(encoding="utf-8").splitlines())
        if count > LIMIT:
            found[path] = count
    return found


def test_counts_lines_against_the_limit(tmp_path):
    (tmp_path / "at_limit.py").write_text("x = 1\n" * LIMIT)
    (tmp_path / "over.py").write_text("x = 1\n" * (LIMIT + 1))
    assert oversized(tmp_path, ["at_limit.py", "over.py"]) == {"over.py": LIMIT + 1}


def test_tracked_modules_leave_out_tests_and_migrations():
    modules = _tracked_modules()
    assert "manage.py" in modules
    assert "conformance/run.py" in modules
    assert not [p for p in modules if p.startswith("tests/")]
    assert not [p for p in modules if "/migrations/" in p]


def test_no_module_over_the_limit():
    too_long = {path: count for path, count in oversized(ROOT, _tracked_modules()).items()
                if path not in KNOWN_EXCEPTIONS}
    assert not too_long, (
        f"modules over {LIMIT} lines (split them by job): "
        + ", ".join(f"{p} ({n})" for p, n in sorted(too_long.items())))


def test_known_exceptions_are_still_needed():
    long_now = oversized(ROOT, list(KNOWN_EXCEPTIONS))
    assert not [p for p in KNOWN_EXCEPTIONS if p not in long_now], (
        "remove from KNOWN_EXCEPTIONS: no longer over the limit")
    assert all(reason.strip() for reason in KNOWN_EXCEPTIONS.values())
