import pytest
from django.conf import settings

from allocations.models import Allocation, Consumer
from providers.models import Inventory, ResourceProvider
from tests.commands import upstream_schema as up
from tests.commands.helpers import check_imported, counted, run

pytestmark = pytest.mark.django_db


@pytest.fixture
def upstream_url(tmp_path):
    path = tmp_path / "upstream.sqlite"
    up.build(str(path))
    return f"sqlite:///{path}"


def test_import_upstream_copies_everything_and_is_idempotent(upstream_url):
    code, out = run("import_upstream", "--database-url", upstream_url, "--dry-run")
    assert code == 0, out
    assert counted(out, "would load", "resource_providers") == [3, 3, 0]
    assert not ResourceProvider.objects.exists()

    code, out = run("import_upstream", "--database-url", upstream_url)
    assert code == 0, out
    assert counted(out, "loaded", "resource_providers") == [3, 3, 0]
    assert counted(out, "loaded", "allocations") == [3, 3, 0]
    check_imported()

    code, out = run("import_upstream", "--database-url", upstream_url)
    assert code == 0
    assert counted(out, "loaded", "resource_providers") == [3, 0, 0]
    assert counted(out, "loaded", "allocations") == [3, 0, 0]
    check_imported()


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
