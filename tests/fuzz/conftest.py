"""The Schemathesis run happens only when asked for (make test-fuzz)."""
import os

import pytest


def pytest_collection_modifyitems(config, items):
    if os.environ.get("PLACEMENT_FUZZ_TEST") == "1":
        return
    skip = pytest.mark.skip(reason="schema fuzzing: run `make test-fuzz`")
    for item in items:
        if "fuzz" in item.keywords:
            item.add_marker(skip)
