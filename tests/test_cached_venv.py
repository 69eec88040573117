"""Two test runs asking for the same cached virtualenv at once (CI runs
several integration steps side by side) build it once; neither throws
away the other's half-built copy."""
import threading
import time
from pathlib import Path

from tests import cached_venv as module


def test_concurrent_callers_build_once(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    created = []

    def fake_run(argv, check):
        if argv[1:3] == ["-m", "venv"]:
            created.append(argv[3])
            (Path(argv[3]) / "bin").mkdir(parents=True)
        else:  # pip install: a real one takes a minute; the other caller arrives meanwhile
            time.sleep(0.5)
            assert Path(argv[0]).parent.is_dir(), "the venv was removed while pip installed into it"

    monkeypatch.setattr(module.subprocess, "run", fake_run)
    results, errors = [], []

    def call():
        try:
            results.append(module.cached_venv("placement-demo", ["requirements-test.txt"]))
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(2)]
    for thread in threads:
        thread.start()
        time.sleep(0.1)
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(created) == 1
    assert results[0] == results[1] and (results[0] / ".complete").exists()
