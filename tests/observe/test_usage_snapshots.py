"""Usage snapshots: the cron command, its interval and retention, and the console chart."""
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from allocations.services import allocations_set
from operations import snapshots
from operations.models import UsageSnapshot
from providers.models import Aggregate, ProviderAggregate
from tests.factories import InventoryFactory, ResourceProviderFactory, resource_class
from tests.support.claims import PROJECT, USER, new_uuid

AGG = "5b1f2c7e-1111-4222-8333-944444444444"


@pytest.fixture
def cloud(db):
    a, b = ResourceProviderFactory(), ResourceProviderFactory()
    InventoryFactory(resource_provider=a, resource_class=resource_class("VCPU"), total=10,
                     reserved=2, allocation_ratio=2.0, max_unit=10)
    InventoryFactory(resource_provider=b, resource_class=resource_class("VCPU"), total=4,
                     max_unit=4)
    agg = Aggregate.objects.create(uuid=AGG)
    ProviderAggregate.objects.create(resource_provider=a, aggregate=agg)
    allocations_set(consumer_uuid=new_uuid(), allocations={a.uuid: {"VCPU": 3},
                                                           b.uuid: {"VCPU": 1}},
                    project_id=PROJECT, user_id=USER, consumer_generation=None)
    return a, b


def test_snapshot_per_class_and_aggregate(cloud):
    out = StringIO()
    call_command("take_usage_snapshot", stdout=out)
    assert "snapshot taken: 2 row(s)" in out.getvalue()
    rows = set(UsageSnapshot.objects.values_list("aggregate_uuid", "resource_class",
                                                 "capacity", "used"))
    assert rows == {("", "VCPU", 16 + 4, 4), (AGG, "VCPU", 16, 3)}


def test_interval_skips_and_force_takes(cloud, settings):
    settings.PLACEMENT_USAGE_SNAPSHOT_INTERVAL_SECONDS = 3600
    call_command("take_usage_snapshot", stdout=StringIO())
    out = StringIO()
    call_command("take_usage_snapshot", stdout=out)
    assert "skipped" in out.getvalue()
    call_command("take_usage_snapshot", "--force", stdout=StringIO())
    assert UsageSnapshot.objects.count() == 4


def test_retention(cloud, settings):
    settings.PLACEMENT_USAGE_SNAPSHOT_RETENTION_DAYS = 7
    snapshots.take(now=timezone.now() - timezone.timedelta(days=8))
    call_command("take_usage_snapshot", "--force", stdout=StringIO())
    assert set(UsageSnapshot.objects.values_list("taken_at__date", flat=True)) == {
        timezone.now().date()}


def test_statement_count_does_not_grow(db):
    counts = []
    for n in (1, 30):
        for _ in range(n):
            rp = ResourceProviderFactory()
            InventoryFactory(resource_provider=rp, resource_class=resource_class("VCPU"))
        with CaptureQueriesContext(connection) as ctx:
            snapshots.compute()
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1] == 4


def test_console_chart_is_inline_svg(cloud):
    snapshots.take(now=timezone.now() - timezone.timedelta(hours=2))
    snapshots.take(force=True)
    user = get_user_model().objects.create_user("op", password="pw", is_staff=True)
    client = Client()
    client.force_login(user)
    page = client.get("/console/usage/").content.decode()
    assert "<svg" in page and 'class="used"' in page and "VCPU: used 4 of 20" in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    page = client.get(f"/console/usage/?aggregate={AGG}").content.decode()
    assert "VCPU: used 3 of 16" in page
    assert "at least 1" in client.get("/console/usage/?days=zero").content.decode()
