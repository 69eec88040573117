"""The cyclic collector is off while an API request runs, and back after."""
import gc

import pytest
from django.test import RequestFactory

from placement_core.edge import PlacementEdgeMiddleware
from placement_core.gcpause import collector_paused


pytestmark = pytest.mark.usefixtures("collector_on")


def _serve(path, seen, fail=False):
    def view(request):
        seen.append(gc.isenabled())
        if fail:
            raise RuntimeError("view failed")
        from django.http import HttpResponse

        return HttpResponse(b"{}", content_type="application/json")

    request = RequestFactory().get(path, HTTP_X_AUTH_TOKEN="admin")
    return PlacementEdgeMiddleware(view)(request)


def test_api_request_runs_with_collector_off_and_restores_it():
    seen = []
    response = _serve("/resource_providers", seen)
    assert response.status_code == 200
    assert seen == [False]
    assert gc.isenabled()


def test_collector_back_after_a_failing_view():
    seen = []
    with pytest.raises(RuntimeError):
        _serve("/resource_providers", seen, fail=True)
    assert seen == [False]
    assert gc.isenabled()


def test_console_paths_leave_the_collector_alone():
    seen = []
    _serve("/console/", seen)
    assert seen == [True]


def test_overlapping_requests_resume_only_when_the_last_ends():
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_collector_turned_off_by_the_operator_stays_off():
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()
