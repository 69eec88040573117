"""Browser tests run only when asked for: `make test-browser` (pytest -m browser)."""
import pytest


def pytest_collection_modifyitems(config, items):
    if "browser" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="browser test: run with `make test-browser` (pytest -m browser)")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)
