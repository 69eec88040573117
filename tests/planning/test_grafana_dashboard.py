"""docs/grafana/placement.json: every expression names only metrics this
service exports, read from a real /metrics scrape of a cloud with data."""
import json
import re
import uuid
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone

from operations.models import UsageSnapshot
from planning import metrics as planning_metrics
from planning.capacity_metrics import clear_cache
from tests.factories import FlavorFactory

pytestmark = pytest.mark.django_db
DASHBOARD = Path(__file__).resolve().parents[2] / "docs" / "grafana" / "placement.json"
METRIC = re.compile(r"\b(placement_[a-z0-9_]+)")


def _expressions(dashboard):
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            yield panel["title"], target["expr"]
    for variable in dashboard["templating"]["list"]:
        if variable.get("type") == "query":
            yield variable["name"], variable["query"]


def _exported(world, settings):
    """Sample names of one scrape where every family has samples."""
    settings.PLACEMENT_METRICS_CACHE_SECONDS = 0
    clear_cache()
    planning_metrics.clear_cache()
    FlavorFactory(name="m1.small", resources="VCPU:1,MEMORY_MB:512")
    rp = world.provider("cn", inventory={"VCPU": 2, "MEMORY_MB": 4096})
    world.consumer({rp: {"VCPU": 2}})
    now = timezone.now()
    UsageSnapshot.objects.bulk_create([
        UsageSnapshot(taken_at=now - timezone.timedelta(days=d), resource_class="VCPU",
                      aggregate_uuid="", capacity=100, used=50 - d) for d in range(5)])
    client = Client()
    headers = {"HTTP_X_AUTH_TOKEN": "admin", "HTTP_OPENSTACK_API_VERSION": "placement 1.39"}
    client.get("/allocation_candidates?resources=VCPU:1", **headers)  # none left: a failure
    body = {"allocations": {rp.uuid: {"resources": {"VCPU": 1}}}, "project_id": "p",
            "user_id": "u", "consumer_generation": None, "consumer_type": "INSTANCE"}
    assert client.put(f"/allocations/{uuid.uuid4()}", json.dumps(body),
                      content_type="application/json", **headers).status_code == 409
    text = client.get("/metrics", HTTP_X_AUTH_TOKEN="admin").content.decode()
    return {line.split("{")[0].split(" ")[0] for line in text.splitlines()
            if line and not line.startswith("#")}


def test_every_expression_names_an_exported_metric(world, settings):
    dashboard = json.loads(DASHBOARD.read_text())
    exported = _exported(world, settings)
    missing = []
    for where, expr in _expressions(dashboard):
        names = METRIC.findall(expr)
        assert names, f"{where}: no placement metric in {expr!r}"
        missing += [f"{where}: {name}" for name in names if name not in exported]
    assert missing == []


def test_the_dashboard_covers_what_the_operator_asks():
    text = DASHBOARD.read_text()
    for metric in ("placement_http_request_duration_seconds_bucket",
                   "placement_headroom_instances", "placement_scheduling_failures_total",
                   "placement_usage_days_to_threshold", "placement_usage_days_to_capacity",
                   "placement_stranded_capacity"):
        assert metric in text, metric
