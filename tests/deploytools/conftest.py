import os

import pytest


def pytest_collection_modifyitems(config, items):
    if os.environ.get("PLACEMENT_DEPLOYTOOLS_TEST") == "1":
        return
    skip = pytest.mark.skip(reason="deployment-tool layouts under real uWSGI and Apache: "
                                   "run `make test-deploy-tools`")
    for item in items:
        if "deploytools" in item.keywords:
            item.add_marker(skip)
