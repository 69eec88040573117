"""Shared fixtures: an API client that speaks Placement (token, microversion)."""
import json
import os

import pytest
from django.db import connection
from django.test import Client


@pytest.fixture(autouse=True)
def _noauth2(settings):
    settings.PLACEMENT_AUTH_STRATEGY = "noauth2"
    settings.PLACEMENT_POLICY_FILE = None
    settings.PLACEMENT_POLICY_DIRS = []
    # The console's and the admin's tests need them served (off by default).
    settings.PLACEMENT_CONSOLE_ENABLED = True
    # Log-in tests hash a password per attempt; the real hasher is slow on purpose.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


class PlacementClient:
    """Thin wrapper over Django's test client.

    ``client.get('/resource_providers', mv='1.20')`` sends the admin token
    and the microversion header; ``json=`` sends a JSON body.
    """

    def __init__(self, token="admin", mv=None, roles=None):
        self._client = Client()
        self.token = token
        self.mv = mv
        # Sent as X-Roles on every request when given (noauth2: exactly these roles).
        self.roles = roles

    def request(self, method, path, *, json=None, mv=None, token=..., headers=None, data=None,
                content_type=None):
        extra = {}
        token = self.token if token is ... else token
        if token is not None:
            extra["HTTP_X_AUTH_TOKEN"] = token
        if self.roles is not None:
            extra["HTTP_X_ROLES"] = self.roles
        version = mv or self.mv
        if version:
            extra["HTTP_OPENSTACK_API_VERSION"] = f"placement {version}"
        for name, value in (headers or {}).items():
            extra["HTTP_" + name.upper().replace("-", "_")] = value
        if json is not None:
            body, ctype = _dumps(json), content_type or "application/json"
        else:
            body, ctype = data or b"", content_type if content_type is not None else ""
        if "?" in path:
            path, _, query = path.partition("?")
            extra["QUERY_STRING"] = query
        return self._client.generic(method, path, data=body, content_type=ctype, **extra)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def put(self, path, **kw):
        return self.request("PUT", path, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    def patch(self, path, **kw):
        return self.request("PATCH", path, **kw)


def _dumps(value):
    return json.dumps(value)


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
    for item in items:
        if "postgres_only" in item.keywords and not postgres:
            item.add_marker(skip_pg)
        elif "needs_row_locks" in item.keywords and not row_locks:
            item.add_marker(skip_locks)
        elif "network_database" in item.keywords and not row_locks:
            item.add_marker(pytest.mark.skip(
                reason="SQLite is a file, with no connection to cut: needs PostgreSQL or "
                "MariaDB/MySQL (set PLACEMENT_TEST_DATABASE_URL)"))


def is_postgres():
    return connection.vendor == "postgresql"
