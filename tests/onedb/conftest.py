"""The one-database tests run only when asked for (make test-onedb): they build
upstream's virtualenv and start real servers on PostgreSQL and MariaDB."""
import os

import pytest

from tests.onedb import harness

BACKENDS = [b for b in os.environ.get("ONEDB_BACKENDS", "postgres mysql").split() if b]


def pytest_collection_modifyitems(config, items):
    if os.environ.get("PLACEMENT_ONEDB_TEST") == "1":
        return
    skip = pytest.mark.skip(reason="upstream on the same database: run `make test-onedb`")
    for item in items:
        if "onedb" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request):
    if not harness.server_answers(request.param):
        pytest.skip(f"no {request.param} server at {harness.SERVERS[request.param]}")
    harness.upstream_venv()
    return request.param


@pytest.fixture
def new_db(backend):
    made = []

    def make(label="db"):
        made.append(harness.Database(backend, label))
        return made[-1]

    yield make
    for db in made:
        db.drop()
