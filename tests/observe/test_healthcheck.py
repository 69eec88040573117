"""GET /healthcheck: 200 with a live database, 503 with a reason without one."""
import copy
import json
import socket

import pytest
from django.db import connection, connections
from django.test import Client

from placement_core import health

pytestmark = pytest.mark.django_db


def _closed_port():
    # Bind then close: nothing listens on that port afterwards.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def unreachable_database(monkeypatch, tmp_path):
    """The health check's connection points at a database that cannot be reached."""
    settings_dict = copy.deepcopy(connection.settings_dict)
    if connection.vendor == "sqlite":
        # A file inside a directory that does not exist cannot be opened.
        settings_dict["NAME"] = str(tmp_path / "missing-dir" / "db.sqlite3")
    else:
        settings_dict.update(HOST="127.0.0.1", PORT=str(_closed_port()))
        settings_dict.setdefault("OPTIONS", {})["connect_timeout"] = 2
    broken = connections["default"].__class__(settings_dict, alias="broken")
    monkeypatch.setattr(health, "_connection", lambda: broken)
    yield broken
    broken.close()


def test_plain_probe_needs_no_token_and_answers_ok():
    response = Client().get("/healthcheck")
    assert response.status_code == 200
    assert response.content == b"OK"
    assert response["Cache-Control"] == "no-store"
    # Not a Placement API answer: no microversion header.
    assert "openstack-api-version" not in response


def test_head_probe():
    assert Client().head("/healthcheck").status_code == 200


def test_post_is_refused():
    assert Client().post("/healthcheck").status_code == 405


def test_unreachable_database_is_503_with_a_reason(unreachable_database):
    response = Client().get("/healthcheck")
    assert response.status_code == 503
    assert response.content == b"database unavailable"


def test_details_only_for_admins(unreachable_database):
    anonymous = Client().get("/healthcheck?detailed=1")
    assert anonymous.status_code == 503
    assert anonymous.content == b"database unavailable"
    member = Client().get("/healthcheck?detailed=1", HTTP_X_AUTH_TOKEN="alice")
    assert member.content == b"database unavailable"
    admin = Client().get("/healthcheck?detailed=1", HTTP_X_AUTH_TOKEN="admin")
    assert admin.status_code == 503
    body = json.loads(admin.content)
    assert body["status"] == "UNAVAILABLE"
    assert body["checks"]["database"]["ok"] is False
    assert body["checks"]["database"]["error"] == "OperationalError"


def test_admin_details_when_healthy():
    response = Client().get("/healthcheck", HTTP_ACCEPT="application/json",
                            HTTP_X_AUTH_TOKEN="admin")
    assert response.status_code == 200
    body = json.loads(response.content)
    assert body["status"] == "OK"
    assert body["checks"]["database"]["vendor"] == connection.vendor
