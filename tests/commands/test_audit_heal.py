import pytest
from django.conf import settings

from allocations.models import Consumer
from providers.models import Inventory
from tests import factories as f
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db


def test_audit_clean():
    inv = f.InventoryFactory(total=8)
    f.AllocationFactory(resource_provider=inv.resource_provider, used=4)
    code, out = run("audit_allocations")
    assert code == 0, out


def test_audit_finds_and_fixes_empty_consumers():
    empty = f.ConsumerFactory()
    inv = f.InventoryFactory(total=8)
    alloc = f.AllocationFactory(resource_provider=inv.resource_provider, used=2)
    code, out = run("audit_allocations")
    assert code == 1
    assert "consumers without allocations: 1" in out and empty.uuid in out

    code, out = run("audit_allocations", "--fix", "--dry-run")
    assert code == 1 and "would delete 1" in out
    assert Consumer.objects.filter(pk=empty.pk).exists()

    code, out = run("audit_allocations", "--fix")
    assert code == 0, out
    assert "deleted 1 empty consumer" in out
    assert not Consumer.objects.filter(pk=empty.pk).exists()
    assert Consumer.objects.filter(uuid=alloc.consumer_id).exists()  # allocations name consumers by uuid


def test_audit_over_capacity_after_reserved_change():
    inv = f.InventoryFactory(total=8, allocation_ratio=2.0)
    rp = inv.resource_provider
    f.AllocationFactory(resource_provider=rp, used=10)
    assert run("audit_allocations")[0] == 0
    Inventory.objects.filter(pk=inv.pk).update(reserved=4)  # capacity now 8
    code, out = run("audit_allocations")
    assert code == 1
    section = out.split("provider/class pairs over capacity: 1\n")[1].splitlines()
    assert section[0].split() == ["provider", "class", "used", "capacity"]
    assert section[1].split() == [rp.name, "VCPU", "10", "8"]
    code, out = run("audit_allocations", "--fix")
    assert code == 1  # --fix leaves allocations that have inventory alone
    section = out.split("provider/class pairs over capacity: 1\n")[1].splitlines()
    assert section[0].split() == ["provider", "class", "used", "capacity"]
    assert section[1].split() == [rp.name, "VCPU", "10", "8"]


def test_audit_reports_incomplete_consumers():
    c = f.ConsumerFactory(user=f.UserFactory(
        external_id=settings.PLACEMENT_INCOMPLETE_CONSUMER_USER_ID))
    f.AllocationFactory(consumer=c, resource_provider=f.InventoryFactory().resource_provider)
    code, out = run("audit_allocations")
    assert code == 1 and "incomplete consumers (run heal_consumers): 1" in out


def test_heal_consumers():
    missing_p = f.ProjectFactory(external_id=settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID)
    missing_u = f.UserFactory(external_id=settings.PLACEMENT_INCOMPLETE_CONSUMER_USER_ID)
    both = f.ConsumerFactory(project=missing_p, user=missing_u, generation=3)
    only_user = f.ConsumerFactory(user=missing_u, generation=1)
    fine = f.ConsumerFactory(generation=5)

    code, out = run("heal_consumers", "--project-id", "p1", "--user-id", "u1", "--dry-run")
    assert code == 0 and "would heal 2" in out
    both.refresh_from_db()
    assert both.generation == 3 and both.project_id == missing_p.pk

    code, out = run("heal_consumers", "--project-id", "p1", "--user-id", "u1")
    assert code == 0 and "healed 2" in out
    both.refresh_from_db(); only_user.refresh_from_db(); fine.refresh_from_db()
    assert (both.project.external_id, both.user.external_id, both.generation) == ("p1", "u1", 4)
    kept_project = only_user.project.external_id
    assert kept_project != "p1" and only_user.user.external_id == "u1"
    assert only_user.generation == 2 and fine.generation == 5
    assert run("heal_consumers", "--project-id", "p1", "--user-id", "u1")[1].strip() == "healed 0 consumer(s)"
    assert run("heal_consumers", "--project-id", " ", "--user-id", "u1")[0] == 2
