"""Request metrics (Prometheus), recorded by the edge for every API request.

Multi-process: when ``PROMETHEUS_MULTIPROC_DIR`` is set (as ``make run``
and docs/operations.md's gunicorn set-up do), prometheus_client keeps each worker's
figures in files in that directory and a scrape sums them, so two gunicorn
workers' counts add up whichever worker answers the scrape.  The directory
must exist, be empty when the server starts (stale files would be added
in), and dead workers are marked through the gunicorn hook in
``placement_site/gunicorn_hooks.py``.  Without the variable (tests, the
development server) the figures live in this process only.

The capacity gauges need the allocations app and live there
(``planning.capacity_metrics``); the ``/metrics`` view joins both.  Apps above
allocations (planning) add their scrape-time collectors with
:func:`register_collector` from their ``AppConfig.ready``.
"""
import json

from django.conf import settings
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client import multiprocess

REQUESTS = Counter(
    "placement_http_requests", "API requests answered.",
    ["route", "method", "status", "microversion"],
)
LATENCY = Histogram(
    "placement_http_request_duration_seconds", "Time to answer an API request.",
    ["route", "method", "status", "microversion"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
CONFLICTS = Counter(
    "placement_http_conflicts", "409 answers by Placement error code.", ["route", "code"],
)
CANDIDATES = Histogram(
    "placement_allocation_candidates_returned",
    "Allocation requests returned per GET /allocation_candidates.",
    buckets=(0, 1, 5, 10, 50, 100, 500, 1000, 5000),
)
# Reads from a replica (placement_core/replica.py).
BULK_READS = Counter(
    "placement_db_bulk_reads",
    "Bulk reads (candidates, provider lists, usages) by the database that served "
    "them and why: fresh (the replica caught up), lagging, down, failed (the replica "
    "broke mid-read), not_a_replica.",
    ["source", "reason"],
)
# Recorded by planning.failures: ``kind`` is "candidates" (no candidates) or
# "claim" (a claim refused for capacity); ``reason`` one of a fixed set of
# constraint kinds (planning.failures.REASONS), never the query.
SCHEDULING_FAILURES = Counter(
    "placement_scheduling_failures", "Scheduling failures by kind and reason.",
    ["kind", "reason"],
)

_EXTRA_COLLECTORS = []


def register_collector(collector):
    """Add a scrape-time collector (an object with ``collect()``) to /metrics."""
    if not any(type(c) is type(collector) for c in _EXTRA_COLLECTORS):
        _EXTRA_COLLECTORS.append(collector)


def route_of(request):
    """The route template (``/allocations/<str:consumer_uuid>``), never the raw path."""
    match = getattr(request, "resolver_match", None)
    if match is None or match.route is None:
        return "unmatched"
    return "/" + match.route


def observe_request(request, response, elapsed):
    route = route_of(request)
    version = getattr(request, "placement_mv", None)
    labels = (route, request.method, str(response.status_code),
              str(version) if version is not None else "")
    REQUESTS.labels(*labels).inc()
    LATENCY.labels(*labels).observe(elapsed)
    if response.status_code == 409:
        CONFLICTS.labels(route, _error_code(response)).inc()


def _error_code(response):
    try:
        return json.loads(response.content)["errors"][0].get("code") or "none"
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return "none"


def request_metrics_text(extra_collectors=()):
    """The exposition text: this process's (or all workers') request metrics plus extras."""
    if settings.PROMETHEUS_MULTIPROC_DIR:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=settings.PROMETHEUS_MULTIPROC_DIR)
    else:
        registry = CollectorRegistry()
        for collector in (REQUESTS, LATENCY, CONFLICTS, CANDIDATES, SCHEDULING_FAILURES,
                          BULK_READS):
            registry.register(collector)
    for collector in [*extra_collectors, *_EXTRA_COLLECTORS]:
        registry.register(collector)
    return generate_latest(registry)
