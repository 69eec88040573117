"""audit_allocations finds leaks: trees, stale migrations, no inventory, disabled hosts."""
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from allocations.models import Allocation, Consumer
from operations import history
from providers.models import ProviderTrait
from tests import factories as f
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db


def _host(name, total=16):
    rp = f.ResourceProviderFactory(name=name)
    f.InventoryFactory(resource_provider=rp, total=total)
    return rp


def _audit(*args):
    code, out = run("audit_allocations", "--json", *args)
    return code, json.loads(out)


def test_clean_cloud_reports_nothing_in_json():
    f.AllocationFactory(resource_provider=_host("h1"), used=2)
    code, body = _audit()
    assert code == 0
    assert body["remaining"] == 0
    assert all(rows == [] for rows in body["findings"].values())
    assert set(body["findings"]) >= {
        "consumers_spanning_trees", "stale_migrations", "allocations_without_inventory",
        "disabled_providers_with_consumers", "over_capacity", "consumers_without_allocations",
        "incomplete_consumers"}


def test_consumer_spanning_two_trees_is_reported_not_fixed():
    src, dst = _host("src"), _host("dst")
    numa = f.ResourceProviderFactory(name="dst-numa0", parent=dst)
    f.InventoryFactory(resource_provider=numa, total=8)
    c = f.ConsumerFactory()
    f.AllocationFactory(consumer=c, resource_provider=src, used=2)
    f.AllocationFactory(consumer=c, resource_provider=numa, used=2)
    one_tree = f.ConsumerFactory()
    f.AllocationFactory(consumer=one_tree, resource_provider=dst, used=1)
    f.AllocationFactory(consumer=one_tree, resource_provider=numa, used=1)
    code, body = _audit("--fix")
    rows = body["findings"]["consumers_spanning_trees"]
    assert code == 1
    assert [r["consumer"] for r in rows] == [c.uuid]
    assert [x["name"] for x in rows[0]["roots"]] == ["dst", "src"]
    assert Allocation.objects.filter(consumer=c).count() == 2


def test_sharing_provider_beside_a_host_is_not_spanning():
    host = _host("h1")
    pool = f.ResourceProviderFactory(name="pool")
    f.InventoryFactory(resource_provider=pool, resource_class=f.resource_class("DISK_GB"))
    ProviderTrait.objects.create(resource_provider=pool,
                                 trait=f.trait("MISC_SHARES_VIA_AGGREGATE"))
    c = f.ConsumerFactory()
    f.AllocationFactory(consumer=c, resource_provider=host)
    f.AllocationFactory(consumer=c, resource_provider=pool,
                        resource_class=f.resource_class("DISK_GB"))
    assert _audit()[1]["findings"]["consumers_spanning_trees"] == []


def test_stale_migration_threshold_is_an_option():
    host = _host("h1")
    migration = f.ConsumerFactory(consumer_type=f.ConsumerTypeFactory(name="MIGRATION"))
    f.AllocationFactory(consumer=migration, resource_provider=host)
    Consumer.objects.filter(pk=migration.pk).update(
        created_at=timezone.now() - timedelta(hours=30))
    fresh = f.ConsumerFactory(consumer_type=f.ConsumerTypeFactory(name="MIGRATION"))
    f.AllocationFactory(consumer=fresh, resource_provider=host)
    instance = f.ConsumerFactory(consumer_type=f.ConsumerTypeFactory(name="INSTANCE"))
    f.AllocationFactory(consumer=instance, resource_provider=host)
    Consumer.objects.filter(pk=instance.pk).update(created_at=timezone.now() - timedelta(days=9))
    code, body = _audit()
    assert code == 1
    assert [r["consumer"] for r in body["findings"]["stale_migrations"]] == [migration.uuid]
    assert _audit("--migration-age-hours", "48")[1]["findings"]["stale_migrations"] == []
    code, out = run("audit_allocations", "--migration-age-hours", "-1")
    assert code == 2


def test_disabled_root_holding_consumers_on_its_children():
    cn = f.ResourceProviderFactory(name="cn1")
    ProviderTrait.objects.create(resource_provider=cn, trait=f.trait("COMPUTE_STATUS_DISABLED"))
    numa = f.ResourceProviderFactory(name="cn1-numa0", parent=cn)
    f.InventoryFactory(resource_provider=numa)
    f.AllocationFactory(resource_provider=numa)
    f.AllocationFactory(resource_provider=numa)
    empty_disabled = _host("cn2")
    ProviderTrait.objects.create(resource_provider=empty_disabled,
                                 trait=f.trait("COMPUTE_STATUS_DISABLED"))
    code, out = run("audit_allocations")
    assert code == 1
    section = out.split("COMPUTE_STATUS_DISABLED providers holding consumers: 1\n")[1]
    assert [line.split() for line in section.splitlines()] == [["provider", "consumers"],
                                                               ["cn1", "2"]]
    assert "cn2" not in out


def test_fix_drops_allocations_without_inventory_through_the_service_with_history():
    host = _host("h1")
    c = f.ConsumerFactory(generation=3, consumer_type=f.ConsumerTypeFactory(name="INSTANCE"))
    f.AllocationFactory(consumer=c, resource_provider=host, used=2)
    f.AllocationFactory(consumer=c, resource_provider=host,
                        resource_class=f.resource_class("DISK_GB"), used=20)
    code, out = run("audit_allocations")
    assert code == 1
    assert [c.uuid, "h1", "DISK_GB", "20", "GiB"] in [line.split() for line in out.splitlines()]

    code, out = run("audit_allocations", "--fix", "--dry-run")
    assert code == 1 and "would drop allocations without inventory of 1 consumer(s)" in out
    assert Allocation.objects.filter(consumer=c).count() == 2

    code, body = _audit("--fix")
    assert code == 0, body
    assert body["fixes"]["consumers_rewritten"] == 1
    left = Allocation.objects.filter(consumer=c)
    assert [(a.resource_class.name, a.used) for a in left] == [("VCPU", 2)]
    c.refresh_from_db()
    assert c.generation == 4 and c.consumer_type.name == "INSTANCE"
    changes = list(history.changes_for(consumer=c.uuid))
    assert [(x.resource_class, x.amount_before, x.amount_after, x.source) for x in changes] == [
        ("DISK_GB", 20, 0, "audit_allocations")]
    assert _audit()[0] == 0


def test_fix_that_loses_to_capacity_is_reported_and_changes_nothing():
    host = _host("h1", total=4)
    c = f.ConsumerFactory()
    f.AllocationFactory(consumer=c, resource_provider=host, used=6)  # over capacity already
    f.AllocationFactory(consumer=c, resource_provider=host,
                        resource_class=f.resource_class("DISK_GB"), used=5)
    code, body = _audit("--fix")
    assert code == 1
    assert len(body["fixes"]["problems"]) == 1 and c.uuid in body["fixes"]["problems"][0]
    assert Allocation.objects.filter(consumer=c).count() == 2
