"""Shared fixtures: an API client that speaks Placement (token, microversion)."""
import os

import pytest

from tests.support.api import PlacementClient
from tests.support.opt_in import opt_in_skips

# Fixtures shared by every test directory (a provider, a tree builder).
pytest_plugins = ["tests.support.fixtures"]


@pytest.fixture(autouse=True)
def _noauth2(settings):
    settings.PLACEMENT_AUTH_STRATEGY = "noauth2"
    settings.PLACEMENT_POLICY_FILE = None
    settings.PLACEMENT_POLICY_DIRS = []
    # The console's and the admin's tests need them served (off by default).
    settings.PLACEMENT_CONSOLE_ENABLED = True
    # Log-in tests hash a password per attempt; the real hasher is slow on purpose.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def api(db):
    """An admin client at the default microversion (send ``mv=`` per call)."""
    return PlacementClient()


@pytest.fixture
def api_factory(db):
    def make(token="admin", mv=None, roles=None):
        return PlacementClient(token=token, mv=mv, roles=roles)

    return make


def pytest_collection_modifyitems(config, items):
    url = os.environ.get("DATABASE_URL", "")
    postgres = url.startswith("postgres")
    row_locks = postgres or url.startswith("mysql")
    skip_pg = pytest.mark.skip(reason="needs PostgreSQL (set PLACEMENT_TEST_DATABASE_URL)")
    skip_locks = pytest.mark.skip(
        reason="needs a database with row locks: PostgreSQL or MariaDB/MySQL "
        "(set PLACEMENT_TEST_DATABASE_URL)")
    markexpr = config.getoption("markexpr")
    for item in items:
        if reason := opt_in_skips(item.keywords, markexpr):
            item.add_marker(pytest.mark.skip(reason=reason))
        if "postgres_only" in item.keywords and not postgres:
            item.add_marker(skip_pg)
        elif "needs_row_locks" in item.keywords and not row_locks:
            item.add_marker(skip_locks)
        elif "network_database" in item.keywords and not row_locks:
            item.add_marker(pytest.mark.skip(
                reason="SQLite is a file, with no connection to cut: needs PostgreSQL or "
                "MariaDB/MySQL (set PLACEMENT_TEST_DATABASE_URL)"))


