"""audit_allocations --fix --dry-run --json lists what the fix would do, in
the shape a real --fix reports, and changes nothing."""
import json

import pytest

from allocations.models import Allocation, Consumer
from tests import factories as f
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db


def _audit(*args):
    code, out = run("audit_allocations", "--json", *args)
    return code, json.loads(out)


def _leaky_cloud():
    host = f.ResourceProviderFactory(name="h1")
    f.InventoryFactory(resource_provider=host, total=16)
    empty = f.ConsumerFactory()
    orphaned = [f.ConsumerFactory(), f.ConsumerFactory()]
    for c in orphaned:
        f.AllocationFactory(consumer=c, resource_provider=host, used=2)
        f.AllocationFactory(consumer=c, resource_provider=host,
                            resource_class=f.resource_class("DISK_GB"), used=20)
    return empty, orphaned


def test_dry_run_fixes_have_the_real_fixes_shape_and_change_nothing():
    empty, orphaned = _leaky_cloud()
    code, dry = _audit("--fix", "--dry-run")
    assert code == 1
    assert dry["dry_run"] is True
    assert dry["fixes"] == {"consumers_deleted": 1, "consumers_rewritten": 2, "problems": []}
    assert Consumer.objects.filter(pk=empty.pk).exists()
    assert Allocation.objects.filter(consumer__in=orphaned).count() == 4

    code, real = _audit("--fix")
    assert code == 0, real
    assert real["dry_run"] is False
    assert real["fixes"] == dry["fixes"]
    assert set(real) == set(dry)


def test_without_fix_there_is_nothing_to_list():
    _leaky_cloud()
    code, body = _audit("--dry-run")
    assert code == 1 and body["fixes"] == {}


def test_fix_records_each_deleted_empty_consumer_and_dry_run_records_nothing():
    from operations.models import AllocationChange

    empty, _ = _leaky_cloud()
    _audit("--fix", "--dry-run")
    assert not AllocationChange.objects.filter(consumer_uuid=empty.uuid).exists()
    _audit("--fix")
    rows = AllocationChange.objects.filter(consumer_uuid=empty.uuid)
    assert [(r.event, r.source, r.consumer_generation, r.provider_uuid, r.resource_class)
            for r in rows] == [("consumer_deleted", "audit_allocations", empty.generation, "", "")]
