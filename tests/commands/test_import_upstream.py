import pytest
from django.conf import settings

from allocations.models import Allocation, Consumer
from providers.models import Inventory, ResourceProvider
from tests.commands import upstream_schema as up
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db


@pytest.fixture
def upstream_url(tmp_path):
    path = tmp_path / "upstream.sqlite"
    up.build(str(path))
    return f"sqlite:///{path}"


def _check_imported():
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


def test_import_upstream_copies_everything_and_is_idempotent(upstream_url):
    code, out = run("import_upstream", "--database-url", upstream_url, "--dry-run")
    assert code == 0, out
    assert "would load resource_providers: 3 (3 created, 0 updated)" in out
    assert not ResourceProvider.objects.exists()

    code, out = run("import_upstream", "--database-url", upstream_url)
    assert code == 0, out
    assert "loaded resource_providers: 3 (3 created, 0 updated)" in out
    assert "loaded allocations: 3 (3 created, 0 updated)" in out
    _check_imported()

    code, out = run("import_upstream", "--database-url", upstream_url)
    assert code == 0
    assert "loaded resource_providers: 3 (0 created, 0 updated)" in out
    assert "loaded allocations: 3 (0 created, 0 updated)" in out
    _check_imported()


def test_import_upstream_bad_url(tmp_path):
    code, out = run("import_upstream", "--database-url", f"sqlite:///{tmp_path}/nope.sqlite")
    assert code == 2 and "cannot read the upstream database" in out
    code, out = run("import_upstream", "--database-url", "oracle://x/y")
    assert code == 2


@pytest.mark.parametrize("url", ["postgres://nobody@127.0.0.1:1/placement",
                                 "mysql://nobody@127.0.0.1:1/placement"])
def test_an_unreachable_upstream_is_one_line(url):
    # psycopg's message adds a second line ("\tIs the server running on
    # that host ...?"): the command prints the first.
    from django.core.management import call_command
    from django.core.management.base import CommandError

    with pytest.raises(CommandError) as refused:
        call_command("import_upstream", "--database-url", url)
    message = str(refused.value)
    assert refused.value.returncode == 2
    assert message.startswith("cannot read the upstream database: ") and "\n" not in message
