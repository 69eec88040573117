"""make demo's cloud is grown over a simulated fortnight: the Usage page has
two weeks of snapshots and the history reads as the changes of a real cloud
(boots, a resize, deletions, a change of owner, a move), all written through
the services; --dry-run writes nothing."""
import datetime
import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from allocations.models import Consumer
from operations.models import AllocationChange, UsageSnapshot
from providers.models import ResourceProvider
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db


def test_dry_run_writes_nothing_and_says_what_it_would():
    code, out = run("demo_cloud", "--dry-run", "--json")
    assert code == 0, out
    report = json.loads(out)
    assert report["dry_run"] is True and report["providers"] == 17
    assert report["snapshots"] >= 14 * 4
    assert not ResourceProvider.objects.exists()
    assert not UsageSnapshot.objects.exists() and not AllocationChange.objects.exists()
    assert not get_user_model().objects.filter(username="demo").exists()


def test_a_fortnight_of_snapshots_and_history():
    code, out = run("demo_cloud")
    assert code == 0, out
    now = timezone.now()
    taken = sorted(set(UsageSnapshot.objects.values_list("taken_at", flat=True)))
    assert len(taken) == 14 * 4 + 1
    assert now - taken[0] >= datetime.timedelta(days=14) - datetime.timedelta(minutes=1)
    assert now - taken[-1] < datetime.timedelta(hours=6)
    # The cloud grew: the VCPU used at the start is less than at the end.
    vcpu = list(UsageSnapshot.objects.filter(aggregate_uuid="", resource_class="VCPU")
                .order_by("taken_at").values_list("used", flat=True))
    assert vcpu[0] == 0 and vcpu[-1] > 0 and len(set(vcpu)) > 5

    changes = AllocationChange.objects.order_by("created_at", "id")
    assert {c.source for c in changes} == {"demo_cloud"}
    moments = [c.created_at for c in changes]
    assert moments == sorted(moments)
    assert moments[-1] - moments[0] > datetime.timedelta(days=13)
    deleted = {c.consumer_uuid for c in changes if c.amount_after == 0
               and not Consumer.objects.filter(uuid=c.consumer_uuid).exists()}
    assert len(deleted) == 2
    assert any(c.owner_change == "project project-b -> project-c" for c in changes)
    resized = [c for c in changes if c.resource_class == "MEMORY_MB"
               and c.amount_before == 4096 and c.amount_after == 8192]
    assert len(resized) == 1
    migration = Consumer.objects.get(consumer_type__name="MIGRATION")
    assert now - migration.created_at < datetime.timedelta(hours=4)
    assert Consumer.objects.order_by("created_at").first().created_at < now - datetime.timedelta(
        days=13)

    staff = Client()
    staff.force_login(get_user_model().objects.get(username="demo"))
    page = staff.get("/console/usage/", {"days": 14}).content.decode()
    assert page.count("<svg") >= 5
