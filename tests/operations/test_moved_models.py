"""The history, snapshot, job-lock and flavor models moved out of
``allocations`` (to ``operations`` and ``planning``) with their tables left
as they were: a database migrated under the old layout migrates forward
with no DDL, every row kept and the content types (with the permissions
given on them) relabelled."""
import re
from datetime import datetime, timezone

import pytest
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext

from operations.models import AllocationChange, JobLock, UsageSnapshot
from planning.models import Flavor

# Just before the move (after the shared schema, which cannot be undone).
OLD_LAYOUT = [("allocations", "0008_shared_schema"),
              ("planning", "0001_scheduling_failures"), ("operations", None)]
MOVED = {"allocationchange": "operations", "usagesnapshot": "operations",
         "joblock": "operations", "flavor": "planning"}
AT = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
DDL = re.compile(r"^\s*(CREATE|ALTER|DROP|RENAME)\b", re.IGNORECASE)


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor


def _fill_old_layout(apps):
    """Rows written by the old code, through the old layout's models."""
    old = {name: apps.get_model("allocations", name)
           for name in ("AllocationChange", "UsageSnapshot", "JobLock", "Flavor")}
    old["AllocationChange"].objects.create(
        consumer_uuid="c" * 36, provider_uuid="p" * 36, resource_class="VCPU", amount_before=0,
        amount_after=2, consumer_generation=1, request_id="req-1", source="api",
        owner_change="project a -> b", event="", created_at=AT)
    old["UsageSnapshot"].objects.create(taken_at=AT, resource_class="VCPU", aggregate_uuid="",
                                        capacity=64, used=2)
    old["JobLock"].objects.update_or_create(name="usage_snapshot", defaults={"taken_at": AT})
    old["Flavor"].objects.create(name="m1.small", resources="VCPU:1,MEMORY_MB:512")
    # The content types as the old layout made them, with a permission given.
    ContentType.objects.filter(model__in=MOVED).delete()
    group = Group.objects.create(name="flavor keepers")
    for model in MOVED:
        kind = ContentType.objects.create(app_label="allocations", model=model)
        permission = Permission.objects.create(content_type=kind, codename=f"view_{model}",
                                               name=f"Can view {model}")
        group.permissions.add(permission)


@pytest.mark.django_db(transaction=True)
def test_an_old_layout_database_migrates_forward_keeping_every_row():
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    executor = _migrate(OLD_LAYOUT)
    _fill_old_layout(executor.loader.project_state(
        [node for node in OLD_LAYOUT if node[1] is not None]).apps)
    kinds_before = dict(ContentType.objects.filter(model__in=MOVED).values_list("model", "pk"))

    with CaptureQueriesContext(connection) as queries:
        _migrate(latest)

    assert [q["sql"] for q in queries if DDL.match(q["sql"])] == []
    change = AllocationChange.objects.get()
    assert (change.consumer_uuid, change.amount_after, change.owner_change, change.created_at) == (
        "c" * 36, 2, "project a -> b", AT)
    assert list(UsageSnapshot.objects.values_list("resource_class", "capacity", "used")) == [
        ("VCPU", 64, 2)]
    assert JobLock.objects.get(name="usage_snapshot").taken_at == AT
    assert list(Flavor.objects.values_list("name", "resources")) == [
        ("m1.small", "VCPU:1,MEMORY_MB:512")]
    # Same content type rows (so the same permissions), under the new apps.
    kinds_after = {model: (kind.app_label, kind.pk)
                   for model, kind in ((k.model, k) for k in ContentType.objects.filter(
                       model__in=MOVED))}
    assert kinds_after == {model: (MOVED[model], kinds_before[model]) for model in MOVED}
    kept = set(Group.objects.get(name="flavor keepers").permissions.values_list(
        "content_type__app_label", "codename"))
    assert kept == {(app, f"view_{model}") for model, app in MOVED.items()}


@pytest.mark.django_db(transaction=True)
def test_the_move_is_state_only_both_ways():
    """Going back to the old layout and forward again runs no DDL either."""
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    with CaptureQueriesContext(connection) as queries:
        _migrate(OLD_LAYOUT)
        _migrate(latest)
    assert [q["sql"] for q in queries if DDL.match(q["sql"])] == []
    assert {"allocation_changes", "usage_snapshots", "job_locks", "flavors"} <= set(
        connection.introspection.table_names())
