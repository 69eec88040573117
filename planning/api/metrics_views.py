"""GET /metrics: Prometheus text exposition of request and capacity metrics.

Outside the Placement API's namespace (no microversion), but behind the
API's authentication and the ``placement:metrics`` policy rule (default:
admin or service), so a scrape job needs a token like any other client.
"""
from django.http import HttpResponse
from prometheus_client import CONTENT_TYPE_LATEST

from placement_core import metrics
from placement_core.api import OperationsView
from placement_core.policy import authorize
from planning.capacity_metrics import CapacityCollector


class MetricsView(OperationsView):
    def get(self, request):
        authorize(request, "placement:metrics")
        body = metrics.request_metrics_text([CapacityCollector()])
        return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)
