"""GET /metrics: request and capacity figures, access by policy, bounded SQL."""
import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from planning import capacity_metrics as capacity
from tests.factories import InventoryFactory, ResourceProviderFactory, resource_class
from tests.support.claims import body, new_uuid


@pytest.fixture(autouse=True)
def _fresh_cache(settings):
    settings.PLACEMENT_METRICS_CACHE_SECONDS = 0
    capacity.clear_cache()
    yield
    capacity.clear_cache()


def scrape(token="admin", **extra):
    return Client().get("/metrics", HTTP_X_AUTH_TOKEN=token, **extra)


def test_needs_a_token_and_the_policy(db):
    assert Client().get("/metrics").status_code == 401
    denied = scrape(token="alice")
    assert denied.status_code == 403
    assert b"placement:metrics" in denied.content
    assert scrape(token="nova", HTTP_X_ROLES="service").status_code == 200


def test_request_metrics_by_route_template(api, provider):
    consumer = new_uuid()
    api.put(f"/allocations/{consumer}", mv="1.28",
            json=body({provider.uuid: {"VCPU": 2}}, consumer_generation=None))
    api.put(f"/allocations/{consumer}", mv="1.28",
            json=body({provider.uuid: {"VCPU": 2}}, consumer_generation=7))
    api.get("/allocation_candidates?resources=VCPU:1", mv="1.39")
    text = scrape().content.decode()
    assert ('placement_http_requests_total{method="PUT",microversion="1.28",'
            'route="/allocations/<str:consumer_uuid>",status="204"}') in text
    assert consumer not in text  # the template, not the raw path
    assert 'placement_http_request_duration_seconds_bucket{' in text
    assert ('placement_http_conflicts_total{code="placement.concurrent_update",'
            'route="/allocations/<str:consumer_uuid>"}') in text
    assert "placement_allocation_candidates_returned_count" in text
    assert scrape()["Content-Type"].startswith("text/plain")


def test_capacity_gauges_after_inventory_is_set(api, provider):
    api.put(f"/allocations/{new_uuid()}", mv="1.28",
            json=body({provider.uuid: {"VCPU": 3}}, consumer_generation=None))
    text = scrape().content.decode()
    labels = (f'provider_name="{provider.name}",provider_uuid="{provider.uuid}",'
              f'resource_class="VCPU",root_provider_uuid="{provider.uuid}"')
    assert f"placement_provider_total{{{labels}}} 8.0" in text
    assert f"placement_provider_used{{{labels}}} 3.0" in text
    assert f"placement_provider_allocation_ratio{{{labels}}}" in text
    assert f"placement_provider_reserved{{{labels}}} 0.0" in text
    assert 'placement_project_used{consumer_type="",' in text


def _add_providers(n):
    for _ in range(n):
        rp = ResourceProviderFactory()
        InventoryFactory(resource_provider=rp, resource_class=resource_class("VCPU"), total=4)


def test_statement_count_does_not_grow_with_providers(db):
    counts = []
    for n in (2, 40):
        _add_providers(n)
        capacity.clear_cache()
        with CaptureQueriesContext(connection) as ctx:
            list(capacity.CapacityCollector().collect())
        counts.append(len(ctx.captured_queries))
    assert counts == [4, 4]  # three for capacity, one for the stored flavors (none here)


def test_capacity_is_cached(db, settings):
    settings.PLACEMENT_METRICS_CACHE_SECONDS = 60
    _add_providers(1)
    capacity.cached_capacity(now=1000.0)
    with CaptureQueriesContext(connection) as ctx:
        capacity.cached_capacity(now=1030.0)
    assert len(ctx.captured_queries) == 0
    with CaptureQueriesContext(connection) as ctx:
        capacity.cached_capacity(now=1061.0)
    assert len(ctx.captured_queries) == 3


def test_api_responses_unchanged_by_metrics(api):
    r = api.get("/", mv="1.0")
    assert r.status_code == 200 and "openstack-api-version" in r


WORKER = """
import sys
from placement_core import metrics
metrics.REQUESTS.labels("/usages", "GET", "200", "1.9").inc(int(sys.argv[1]))
"""


def test_two_worker_processes_add_up(tmp_path, settings, db):
    import os
    import subprocess
    import sys

    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    for amount in ("2", "3"):
        subprocess.run([sys.executable, "-c", WORKER, amount], env=env, check=True,
                       cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    settings.PROMETHEUS_MULTIPROC_DIR = str(tmp_path)
    from placement_core import metrics

    text = metrics.request_metrics_text().decode()
    assert ('placement_http_requests_total{method="GET",microversion="1.9",'
            'route="/usages",status="200"} 5.0') in text
