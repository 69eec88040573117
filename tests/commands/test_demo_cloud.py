"""demo_cloud: the realistic small cloud, written through the services, and
a console login; refuses a database that already holds providers."""
import json
from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from allocations.models import Allocation, Consumer
from operations.audit import over_capacity
from planning import failures
from planning.models import SchedulingFailure
from providers.models import Inventory, ResourceProvider
from tests.commands.helpers import run
from tests.console.figures_html import table

pytestmark = pytest.mark.django_db


def test_demo_cloud_loads_a_consistent_cloud_and_a_login():
    code, out = run("demo_cloud")
    assert code == 0, out
    # 13 with allocations, and the one a boot left without (seed_trouble)
    assert "loaded 17 providers and 14 consumers" in out
    password = out.split("console login: demo / ")[1].split()[0]
    assert get_user_model().objects.get(username="demo").check_password(password)
    assert ResourceProvider.objects.filter(parent__isnull=False).count() == 12  # cells, NICs
    assert ResourceProvider.objects.filter(
        traits__name="MISC_SHARES_VIA_AGGREGATE").count() == 1
    assert Consumer.objects.filter(consumer_type__name="MIGRATION").count() == 1
    # Nothing over capacity (the one class without inventory is seeded: below).
    assert [p for p in over_capacity() if p["has_inventory"]] == []


def test_demo_cloud_gives_the_failures_and_audit_pages_something_to_show():
    """Item 9: scheduling failures recorded the way the API records them
    (an empty answer with its explanation, a claim refused for capacity)
    and audit findings, each counted from the tables, not from the output."""
    # The explanations' per-minute budget is the process's: other tests' demos spent it.
    failures.explanations.reset()
    assert run("demo_cloud")[0] == 0
    day_ago = timezone.now() - timezone.timedelta(hours=24)
    recent = SchedulingFailure.objects.filter(created_at__gte=day_ago)
    kinds = set(recent.values_list("kind", flat=True))
    assert kinds == {"candidates", "claim"}
    assert all(f.explanation for f in recent)  # explained, as after a real answer
    code, out = run("scheduling_failures", "--json")
    body = json.loads(out)
    assert code == 1 and body["total"] == recent.count() >= 3
    assert {(g["kind"], g["reason"]): g["count"] for g in body["by_reason"]} == dict(
        Counter(recent.values_list("kind", "reason")))
    # The claim was refused for want of capacity: nothing of it was written.
    claim = recent.get(kind="claim")
    assert claim.reason == "capacity"
    assert not Allocation.objects.filter(consumer_id=claim.query.split()[1].split("/")[-1])

    # Counted another way: consumers no allocation names, and allocations
    # whose provider has no inventory of their class.
    held = set(Allocation.objects.values_list("consumer_id", flat=True))
    empty = sorted(u for u in Consumer.objects.values_list("uuid", flat=True) if u not in held)
    offered = set(Inventory.objects.values_list("resource_provider_id", "resource_class_id"))
    orphans = [a for a in Allocation.objects.all()
               if (a.resource_provider_id, a.resource_class_id) not in offered]
    assert empty and orphans
    code, out = run("audit_allocations", "--json")
    findings = json.loads(out)["findings"]
    assert code == 1
    assert sorted(findings["consumers_without_allocations"]) == empty
    assert len(findings["allocations_without_inventory"]) == len(orphans)
    assert {(r["consumer"], r["used"]) for r in findings["allocations_without_inventory"]} == {
        (a.consumer_id, a.used) for a in orphans}

    # The console's pages show the same, counted from the tables above.
    staff = Client()
    staff.force_login(get_user_model().objects.get(username="demo"))
    page = staff.get("/console/failures/").content.decode()
    shown = {(row[0].text, row[1].text): int(row[2].text) for row in table(page, "by-reason")}
    assert shown == dict(Counter(recent.values_list("kind", "reason")))
    assert len(table(page, "failures")) == recent.count()
    page = staff.get("/console/audit/").content.decode()
    found = {row[0].text: int(row[1].text) for row in table(page, "audit-summary")}
    assert found["Consumers without allocations"] == len(empty)
    assert found["Allocations without inventory"] == len(orphans)

    # --fix repairs both (what the Audit page's buttons do).
    assert run("audit_allocations", "--fix")[0] == 0


def test_demo_cloud_wants_an_empty_database():
    ResourceProvider.objects.create(name="existing", uuid="7c8c1a0e-5a55-4e0a-9d55-6a2d2f6a7a01")
    code, out = run("demo_cloud")
    assert code == 2
    assert "already holds providers" in out
