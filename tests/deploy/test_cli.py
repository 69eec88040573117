"""placement-manage and placement-status, called as deployment tools call them."""
import json

import pytest

from maintenance import cli
from placement_site import policy
from providers.models import ResourceProvider


@pytest.fixture(autouse=True)
def _fresh_policy():
    policy.reset()
    yield
    policy.reset()


@pytest.mark.django_db
def test_db_sync_and_version(capsys):
    assert cli.manage(["db", "sync"]) == 0
    assert cli.manage(["db", "version"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert "." in last and last != "None"


@pytest.mark.django_db
def test_online_data_migrations_has_nothing_left(capsys):
    assert cli.manage(["db", "online_data_migrations"]) == 0
    assert "| Migration | Total Needed | Completed |" in capsys.readouterr().out
    assert cli.manage(["db", "online_data_migrations", "--max-count", "0"]) == 127


@pytest.mark.django_db
def test_upgrade_check_table_and_json_on_a_healthy_database(capsys):
    assert cli.status(["upgrade", "check"]) == 0
    out = capsys.readouterr().out
    assert "| Upgrade Check Results" in out
    assert "| Result: Success" in out
    assert cli.status(["upgrade", "check", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["result"] == 0
    assert {c["result_name"] for c in data["checks"]} == {"Success"}


@pytest.mark.django_db
def test_upgrade_check_warning_exits_1(capsys):
    from resource_classes.models import Trait

    Trait.objects.filter(name="HW_CPU_X86_AVX2").delete()
    assert cli.status(["upgrade", "check", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["result_name"] == "Warning"


@pytest.mark.django_db
def test_upgrade_check_failure_exits_2(capsys, settings, tmp_path):
    bad = tmp_path / "policy.yaml"
    bad.write_text('"placement:resource_providers:list": "role:admin or ("\n')
    settings.PLACEMENT_POLICY_FILE = str(bad)
    assert cli.status(["upgrade", "check"]) == 2
    out = capsys.readouterr().out
    assert "| Result: Failure" in out
    assert "does not parse" in out
    assert ResourceProvider.objects.count() == 0


def test_unknown_subcommand_is_a_usage_error():
    with pytest.raises(SystemExit) as info:
        cli.manage(["db", "upgrade"])
    assert info.value.code == 2
