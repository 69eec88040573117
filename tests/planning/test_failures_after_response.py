"""An empty candidates answer goes out before its scheduling failure is
explained and stored: the explanation (a search over every tree) runs when
the server closes the response, not while Nova waits for it."""
import io
import json

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from planning import failures
from planning.models import SchedulingFailure

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    # As Django's test client does: the handler would otherwise close the
    # connection that holds the test's transaction.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def _environ(query):
    return {
        "REQUEST_METHOD": "GET", "PATH_INFO": "/allocation_candidates", "QUERY_STRING": query,
        "SERVER_NAME": "testserver", "SERVER_PORT": "80", "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(b""), "wsgi.errors": io.StringIO(),
        "HTTP_X_AUTH_TOKEN": "admin", "HTTP_OPENSTACK_API_VERSION": "placement 1.39",
        "HTTP_X_OPENSTACK_REQUEST_ID": "req-11111111-2222-4333-8444-555555555555",
    }


def test_the_answer_is_whole_before_the_failure_is_explained(world):
    failures.explanations.reset()
    world.provider("cn1", inventory={"VCPU": {"total": 8, "max_unit": 4}})
    started = []
    response = WSGIHandler()(_environ("resources=VCPU:6"),
                             lambda status, headers: started.append(status))
    body = b"".join(response)
    assert started == ["200 OK"] and json.loads(body)["allocation_requests"] == []
    # The server has the whole answer; nothing is recorded yet.
    assert SchedulingFailure.objects.count() == 0
    response.close()  # what a WSGI server does once it has sent the body
    (record,) = SchedulingFailure.objects.all()
    assert record.reason == "max_unit" and record.explanation["candidates"] == 0
    assert record.global_request_id == "req-11111111-2222-4333-8444-555555555555"
    assert record.query == "resources=VCPU:6" and record.microversion == "1.39"


def test_a_failing_explanation_is_logged_and_the_next_request_is_clean(world, monkeypatch,
                                                                       caplog):
    failures.explanations.reset()
    world.provider("cn1", inventory={"VCPU": {"total": 8, "max_unit": 4}})

    def broken(*args, **kwargs):
        raise RuntimeError("explainer broke")

    monkeypatch.setattr(failures.explain, "explain", broken)
    response = WSGIHandler()(_environ("resources=VCPU:6"), lambda *a: None)
    assert json.loads(b"".join(response))["allocation_requests"] == []
    response.close()
    assert SchedulingFailure.objects.count() == 0
    assert "could not record" in caplog.text
    monkeypatch.undo()
    response = WSGIHandler()(_environ("resources=VCPU:6"), lambda *a: None)
    b"".join(response)
    response.close()
    assert SchedulingFailure.objects.count() == 1  # only its own record, once
