"""demo_cloud's migration in flight is a real move, as Nova makes one: the
MIGRATION consumer holds the source host's allocations, the instance the
destination host's; neither spans two trees, so the audit finds no move
residue (only the leftovers the demo seeds on purpose)."""
import json

import pytest

from allocations.models import Allocation, Consumer
from maintenance.demo import _uuid
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db


def _roots(consumer_uuid):
    """Names of the non-sharing roots the consumer holds allocations in."""
    return {a.resource_provider.root.name for a in Allocation.objects.filter(
        consumer__uuid=consumer_uuid).select_related("resource_provider__root")
        if a.resource_provider.root.name != "storage-pool"}


def test_migration_holds_the_source_and_the_instance_the_destination():
    assert run("demo_cloud")[0] == 0
    migration = Consumer.objects.get(consumer_type__name="MIGRATION")
    instance = _uuid("instance", 0)
    assert _roots(migration.uuid) == {"compute-01"}
    assert _roots(instance) == {"compute-02"}
    assert migration.project_id == Consumer.objects.get(uuid=instance).project_id

    def held(uuid):
        out = {}
        for a in Allocation.objects.filter(consumer__uuid=uuid).select_related("resource_class"):
            out[a.resource_class.name] = out.get(a.resource_class.name, 0) + a.used
        return out

    # The same flavor on both sides of the move.
    assert held(migration.uuid) == held(instance)

    code, out = run("audit_allocations", "--json")
    body = json.loads(out)
    # Only the two leftovers demo_trouble seeds on purpose, no move residue.
    assert {k for k, rows in body["findings"].items() if rows} == {
        "consumers_without_allocations", "allocations_without_inventory"}, body
    assert body["findings"]["consumers_spanning_trees"] == []
