"""Which paths the Placement edge handles: the view a path resolves to says
so (``placement_api``); the edge lists no other app's routes."""
import ast
from pathlib import Path

import pytest
from django.test import Client
from django.urls import path

from placement_core import edge
from placement_core.api import OperationsView, PlacementView

EDGE = Path(edge.__file__)


@pytest.mark.parametrize("url, api", [
    ("/", True),
    ("/resource_providers", True),
    ("/resource_providers/x/inventories/VCPU", True),
    ("/allocation_candidates", True),
    ("/reshaper", True),
    ("/planning/drain", True),
    ("/no_such_route", True),  # an unknown route is the API's: 401, then its 404
    # Answered in front of Django (placement_site.httpstack); one its probe
    # declines reaches Django as an unknown route.
    ("/healthcheck", True),
    ("/metrics", False),
    ("/explain", False),
    ("/history/consumers/x", False),
    ("/history/providers/x", False),
    ("/favicon.ico", False),
    ("/admin/", False), ("/admin", False), ("/admin/no/such/page", False),
    ("/console/", False), ("/console", False), ("/console/no/such/page", False),
    ("/api/schema/", False), ("/api/docs/", False), ("/api/no_such_page", False),
    ("/static/console/no-such-file.css", False),
])
def test_the_view_decides(url, api):
    assert edge.is_api_path(url) is api


@pytest.mark.parametrize("url", ["/metrics", "/explain", "/history/consumers/x",
                                 "/history/providers/x"])
def test_operations_endpoints_are_operations_views(url):
    from django.urls import resolve

    view = resolve(url).func.view_class
    assert issubclass(view, OperationsView) and issubclass(view, PlacementView)
    assert view.placement_api is False


class _Api(PlacementView):
    def get(self, request):
        raise AssertionError("not reached without a token")


class _Ops(OperationsView):
    def get(self, request):
        from django.http import HttpResponse

        return HttpResponse("ok")


urlpatterns = [path("new_api_route", _Api.as_view()), path("new_ops_route", _Ops.as_view())]


@pytest.mark.urls(__name__)
def test_a_new_route_is_classified_by_its_view_alone(db):
    assert edge.is_api_path("/new_api_route") is True
    assert edge.is_api_path("/new_ops_route") is False
    # The edge asks an API route for a token; an operations view asks itself.
    response = Client().get("/new_api_route")
    assert response.status_code == 401 and "x-openstack-request-id" in response
    response = Client().get("/new_ops_route")
    assert response.status_code == 401 and "x-openstack-request-id" not in response
    assert response.json()["errors"][0]["status"] == 401
    ok = Client().get("/new_ops_route", HTTP_X_AUTH_TOKEN="admin")
    assert (ok.status_code, ok.content) == (200, b"ok")


@pytest.mark.parametrize("url", ["/metrics", "/explain", "/history/consumers/x"])
def test_an_operations_endpoint_refuses_other_methods_before_asking_for_a_token(url, db):
    for method in ("post", "put", "delete", "head", "options"):
        assert getattr(Client(), method)(url).status_code == 405


def routes_named(source):
    """String constants in ``source`` that look like a site path ("/x...")."""
    return sorted(node.value for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and node.value.startswith("/") and len(node.value) > 1
                  and node.value[1:2].isalpha())


def test_the_edge_names_no_route():
    assert routes_named(EDGE.read_text(encoding="utf-8")) == []


def test_the_route_check_would_see_a_list_of_paths():
    assert routes_named('NON_API = ("/metrics", "/console/")\nROOT = "/"\n') == [
        "/console/", "/metrics"]
