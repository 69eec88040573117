"""What the command tests share: run a management command and get (exit code,
stdout); a small cloud to dump and its export; every stored row; the checks
of an imported upstream database."""
import io
import json

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from allocations.models import Allocation, Consumer
from providers.models import Inventory, ResourceProvider
from tests import factories as f
from tests.commands import upstream_schema as up


def run(*args, stdin=None):
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(*args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exc:
        code = exc.code
    except CommandError as exc:
        code = exc.returncode
        err.write(str(exc))
    return code, out.getvalue() + err.getvalue()


def counted(out, prefix, kind):
    """[total, created, updated] of ``kind`` in load_json's (or
    import_upstream's) table under "loaded:" or "would load:"."""
    lines = out.splitlines()
    start = lines.index(f"{prefix}:")
    assert lines[start + 1].split() == ["rows", "total", "created", "updated"]
    for line in lines[start + 2:]:
        cells = line.split()
        if cells and cells[0] == kind:
            return [int(n) for n in cells[1:]]
    raise AssertionError(f"no {kind} row under {prefix!r}:\n{out}")


def populate():
    root = f.ResourceProviderFactory(name="cn1", generation=7)
    child = f.ResourceProviderFactory(name="cn1-numa0", parent=root)
    f.InventoryFactory(resource_provider=child, total=16, allocation_ratio=4.0)
    gold = f.ResourceClassFactory(name="CUSTOM_GOLD")
    f.InventoryFactory(resource_provider=root, resource_class=gold, total=2)
    root.traits.add(f.TraitFactory(name="CUSTOM_FAST"))
    agg = f.AggregateFactory()
    root.aggregates.add(agg)
    c = f.ConsumerFactory(generation=3, consumer_type=f.ConsumerTypeFactory(name="MIGRATION"))
    f.AllocationFactory(consumer=c, resource_provider=child, used=4)
    f.AllocationFactory(consumer=c, resource_provider=root, resource_class=gold, used=1)
    return root, child, c


def snapshot():
    code, out = run("export_json")
    assert code == 0
    return json.loads(out)


def every_row():
    """Every row of every table, ids and timestamps included: the database
    as stored, not as exported."""
    from django.db import connection

    rows = {}
    with connection.cursor() as cursor:
        for table in sorted(connection.introspection.table_names()):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            rows[table] = sorted(map(repr, cursor.fetchall()))
    return rows


def check_imported():
    root = ResourceProvider.objects.get(uuid=up.ROOT)
    child = ResourceProvider.objects.get(uuid=up.CHILD)
    shared = ResourceProvider.objects.get(uuid=up.SHARED)
    assert (root.name, root.generation, root.parent_id, root.root_id) == ("cn1", 5, None, root.pk)
    assert (child.generation, child.parent_id, child.root_id) == (3, root.pk, root.pk)
    assert shared.root_id == shared.pk
    invs = {(i.resource_provider.uuid, i.resource_class.name): i
            for i in Inventory.objects.select_related("resource_provider", "resource_class")}
    assert set(invs) == {(up.CHILD, "VCPU"), (up.CHILD, "MEMORY_MB"), (up.SHARED, "DISK_GB"),
                         (up.ROOT, "CUSTOM_GOLD")}
    mem = invs[(up.CHILD, "MEMORY_MB")]
    assert (mem.total, mem.reserved, mem.allocation_ratio) == (4096, 512, 1.5)
    assert sorted(root.traits.values_list("name", flat=True)) == ["CUSTOM_FAST"]
    assert list(child.traits.values_list("name", flat=True)) == ["HW_CPU_X86_AVX"]
    assert list(shared.aggregates.values_list("uuid", flat=True)) == [up.AGG]
    c = Consumer.objects.get(uuid=up.CONSUMER)
    assert (c.project.external_id, c.user.external_id, c.consumer_type.name, c.generation) == (
        "proj-a", "user-a", "INSTANCE", 4)
    assert sorted(c.allocations.values_list("resource_class__name", "used")) == [
        ("DISK_GB", 100), ("VCPU", 2)]
    orphan = Consumer.objects.get(uuid=up.ORPHAN)
    assert orphan.project.external_id == settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID
    assert Allocation.objects.count() == 3
