"""Numbers past any date and ids no row can hold, given to the maintenance
commands: one line and exit 2, nothing written, never a traceback (found
while working on issue 28)."""
import pytest

from allocations.models import Consumer
from tests import factories as f
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("args,words", [
    (("prune_allocation_history", "--days", "100000000"), "--days must be at most 36500"),
    (("audit_allocations", "--migration-age-hours", "100000000000"),
     "at most 876000 (a hundred years)"),
    (("audit_allocations", "--migration-age-hours", "nan"), "--migration-age-hours must be"),
])
def test_numbers_past_any_date_are_refused(args, words):
    code, out = run(*args)
    assert code == 2
    assert words in out


@pytest.mark.parametrize("project,user,words", [
    ("a\x00b", "u", "--project-id must not hold a NUL character"),
    ("p", "x" * 256, "--user-id must be at most 255 characters"),
])
def test_heal_consumers_refuses_ids_no_row_can_hold(project, user, words):
    from django.conf import settings

    incomplete = f.ConsumerFactory(
        project=f.ProjectFactory(external_id=settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID))
    code, out = run("heal_consumers", "--project-id", project, "--user-id", user)
    assert code == 2
    assert words in out
    incomplete.refresh_from_db()
    assert incomplete.project.external_id == settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID
    assert Consumer.objects.count() == 1


@pytest.mark.parametrize("variable", ["PLACEMENT_ALLOCATION_HISTORY_RETENTION_DAYS",
                                      "PLACEMENT_USAGE_SNAPSHOT_RETENTION_DAYS"])
def test_retention_settings_past_any_date_stop_start_up(variable):
    from placement_site import config

    with pytest.raises(config.ConfigError, match=f"{variable}: expected an integer from 0 to 36500"):
        config.load({variable: "100000000"})
    assert config.load({variable: "36500"})[0][variable] == 36500


@pytest.mark.parametrize("indent", ["-1", "17", "2147483648", "9223372036854775808"])
def test_export_indent_past_any_use_is_refused(indent):
    # A huge indent was a MemoryError (or OverflowError) after allocating
    # gigabytes: one line and exit 2 before anything is read.
    f.InventoryFactory()
    code, out = run("export_json", "--indent", indent)
    assert code == 2
    assert out.strip() == "--indent must be a whole number from 0 to 16"


def test_export_indent_within_the_bound():
    f.InventoryFactory()
    code, out = run("export_json", "--indent", "16")
    assert code == 0 and '\n' + " " * 16 + '"format"' in out


@pytest.mark.parametrize("args,words", [
    (("headroom", "--flavor", "a\nb\x1b[31m"), r"no flavor named 'a\nb\x1b[31m'"),
    (("provider_tree", "--root", "a\nb\x1b[31m"),
     r"No resource provider with uuid or name 'a\nb\x1b[31m'."),
])
def test_a_name_that_is_echoed_stays_on_one_line(args, words):
    # Quoted as Python writes it: a newline or an escape sequence in what
    # was asked for is shown, not acted on by the terminal.
    code, out = run(*args)
    assert code == 2
    assert out.strip().splitlines() == [out.strip()] and words in out


@pytest.mark.parametrize("args", [
    ("flavors", "add", "a\x00b", "VCPU:1"), ("flavors", "add", "a\x00b", "VCPU:1", "--dry-run"),
    ("flavors", "add", "ab", "VCPU:1\x00"), ("flavors", "delete", "a\x00b"),
    ("flavors", "delete", "\x00", "--dry-run"),
])
def test_flavors_refuses_a_nul_character(args):
    # PostgreSQL could not even be asked about such a name (DataError).
    f.FlavorFactory(name="ab")
    code, out = run(*args)
    assert code == 2
    assert out.strip() == "a flavor's name and resources hold no NUL character"
    from planning.models import Flavor
    assert list(Flavor.objects.values_list("name", flat=True)) == ["ab"]
