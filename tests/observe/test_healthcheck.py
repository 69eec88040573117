"""GET /healthcheck (oslo.middleware's probe and the database backend): 200
with a live database, 503 with a reason without one."""
import copy
import json
import socket

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.db import connection, connections

from placement_core import health
from tests import wsgi_stack

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
    monkeypatch.setattr(health, "database_connection", lambda: broken)
    yield broken
    broken.close()


def probe(method="GET", headers=None, **healthcheck):
    return wsgi_stack.call(method, "/healthcheck", headers, healthcheck=healthcheck)


def test_plain_probe_needs_no_token_and_answers_ok():
    response = probe()
    assert response.status_code == 200
    assert response.body == b"OK"
    assert response.headers["Cache-Control"] == "no-store"
    # Not a Placement API answer: no microversion header.
    assert "openstack-api-version" not in response.headers


def test_head_probe_is_204_as_oslo_middleware_answers_it():
    assert probe("HEAD").status_code == 204


def test_post_is_refused():
    response = probe("POST")
    assert response.status_code == 405
    assert response.headers["Allow"] == "GET, HEAD"


def test_unreachable_database_is_503_with_a_reason(unreachable_database):
    response = probe()
    assert response.status_code == 503
    assert response.body == b"database unavailable"
    assert probe("HEAD").status_code == 503


def test_json_probe_names_the_reasons_without_details(unreachable_database):
    response = probe(headers={"Accept": "application/json"})
    assert response.status_code == 503
    assert json.loads(response.body) == {"detailed": False, "reasons": ["database unavailable"]}


def test_details_only_when_the_operator_turns_them_on(unreachable_database):
    body = json.loads(probe(headers={"Accept": "application/json"}, detailed=True).body)
    [reason] = body["reasons"]
    assert reason["reason"] == "database unavailable"
    assert reason["class"] == "HealthcheckResult"
    assert "OperationalError" in reason["details"]


def test_healthy_details_name_the_database():
    body = json.loads(probe(headers={"Accept": "application/json"}, detailed=True).body)
    [reason] = body["reasons"]
    assert reason["reason"] == "OK"
    assert reason["details"].startswith(f"{connection.vendor}: SELECT 1 in ")


def test_other_backends_run_beside_the_database_check(tmp_path):
    down = tmp_path / "down"
    down.write_text("")
    response = probe(backends=["disable_by_file"])
    # One reason per backend, as oslo.middleware writes them.
    assert (response.status_code, response.body) == (200, b"OK\nOK")
    conf = wsgi_stack.middleware_conf(healthcheck={"backends": ["disable_by_file"]})
    from oslo_middleware.healthcheck import opts

    conf.register_opts(opts.DISABLE_BY_FILE_OPTS, group="healthcheck")
    conf.set_override("disable_by_file_path", str(down), group="healthcheck")
    response = wsgi_stack.call("GET", "/healthcheck",
                               app=wsgi_stack.httpstack.build(WSGIHandler(), conf))
    assert response.status_code == 503
    assert b"DISABLED BY FILE" in response.body


# Outside the test's transaction: the declined probe is a whole Django
# request, whose end handles the connection as a server's would.
@pytest.mark.django_db(transaction=True)
def test_a_source_outside_the_allowed_ranges_gets_a_404():
    # Declined by the probe, the request is an unknown route to Django.
    outside = probe(headers={"X-Auth-Token": "admin"}, allowed_source_ranges=["192.0.2.0/24"])
    assert outside.status_code == 404 and b"\"errors\"" in outside.body
    assert probe(allowed_source_ranges=["192.0.2.0/24"]).status_code == 401
    response = wsgi_stack.call("GET", "/healthcheck", environ={"REMOTE_ADDR": "192.0.2.7"},
                               healthcheck={"allowed_source_ranges": ["192.0.2.0/24"]})
    assert (response.status_code, response.body) == (200, b"OK")
