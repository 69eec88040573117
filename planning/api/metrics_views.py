"""GET /metrics: Prometheus text exposition of request and capacity metrics.

Outside the Placement API's namespace (no microversion), but behind the
API's authentication and the ``placement:metrics`` policy rule (default:
admin or service), so a scrape job needs a token like any other client.
"""
from django.http import HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST

from placement_core import edge, errors, metrics
from placement_core.policy import authorize
from planning.capacity_metrics import CapacityCollector


@require_GET
def metrics_view(request):
    try:
        context = edge.authenticate(request)
        if context is None:
            raise errors.Unauthorized("The request you have made requires authentication.")
        request.placement_context = context
        authorize(request, "placement:metrics")
    except errors.PlacementError as exc:
        return errors.render_error(request, exc)
    body = metrics.request_metrics_text([CapacityCollector()])
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)
