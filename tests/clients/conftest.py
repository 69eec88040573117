"""The real-clients integration test runs only when asked for (make test-clients)."""
import os

import pytest


def pytest_collection_modifyitems(config, items):
    if os.environ.get("PLACEMENT_CLIENTS_TEST") == "1":
        return
    skip = pytest.mark.skip(reason="real OpenStack clients test: run `make test-clients`")
    for item in items:
        if "clients" in item.keywords:
            item.add_marker(skip)
