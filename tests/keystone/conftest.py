"""The Keystone integration test runs only when asked for (make test-keystone)."""
import os

import pytest


def pytest_collection_modifyitems(config, items):
    if os.environ.get("PLACEMENT_KEYSTONE_TEST") == "1":
        return
    skip = pytest.mark.skip(reason="real Keystone test: run `make test-keystone`")
    for item in items:
        if "keystone" in item.keywords:
            item.add_marker(skip)
