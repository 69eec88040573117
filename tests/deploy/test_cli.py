"""placement-manage and placement-status, called as deployment tools call them."""
import json

import pytest

from maintenance import cli
from placement_core import policy
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


# --- every operator command under placement-manage --------------------------


@pytest.mark.parametrize("name", sorted(cli.COMMANDS))
def test_each_operator_command_has_help(name, capsys):
    with pytest.raises(SystemExit) as info:
        cli.manage([name, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: placement-manage {name}")
    assert "--config-file" in out


def test_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as info:
        cli.manage(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for name in cli.COMMANDS:
        assert f"\n  {name} " in out


def test_every_command_named_exists():
    from django.core.management import get_commands

    missing = [cmd for cmd, _about in cli.COMMANDS.values() if cmd not in get_commands()]
    assert not missing


@pytest.mark.django_db
def test_db_stamp_records_without_migrating(capsys):
    from django.db import connection
    from django.db.migrations.recorder import MigrationRecorder

    recorder = MigrationRecorder(connection)
    last = recorder.migration_qs.filter(app="allocations").order_by("-name").first()
    tables_before = set(connection.introspection.table_names())
    recorder.migration_qs.filter(app="allocations", name=last.name).delete()
    assert cli.manage(["db", "stamp", f"allocations.{last.name}"]) == 0
    assert recorder.migration_qs.filter(app="allocations", name=last.name).exists()
    assert set(connection.introspection.table_names()) == tables_before
    assert capsys.readouterr().out.strip().splitlines()[-1].count(".") == 1
    assert cli.manage(["db", "stamp", "head"]) == 0


@pytest.mark.django_db
def test_db_stamp_unknown_version_is_one_line_exit_2(capsys):
    assert cli.manage(["db", "stamp", "allocations.9999_nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == ("placement-manage: no migration 'allocations.9999_nope' (give 'head' or "
                       "APP.MIGRATION as `db version` prints it)")


@pytest.mark.django_db
def test_db_version_names_the_database_on_stderr(capsys, settings):
    assert cli.manage(["db", "version"]) == 0
    err = capsys.readouterr().err
    from placement_core.state import describe_database

    assert f"placement-manage: database {describe_database(settings.DATABASES['default'])}" in err


def run_script(tmp_path, *args):
    """placement-manage in a process of its own (Django's command runner
    closes the database connections), on a SQLite file of its own."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, DATABASE_URL=f"sqlite:///{tmp_path / 'cli.sqlite3'}",
               OS_PLACEMENT_CONFIG_DIR=str(tmp_path))
    env.pop("PLACEMENT_CONFIG_FILES", None)
    return subprocess.run(
        [sys.executable, "-c", "from maintenance.cli import main_manage; main_manage()", *args],
        env=env, capture_output=True, text=True, timeout=120)


def test_commands_run_through_the_script(tmp_path):
    assert run_script(tmp_path, "db", "sync").returncode == 0
    result = run_script(tmp_path, "flavors", "add", "m1.small", "VCPU:1,MEMORY_MB:512")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "stored flavor m1.small: VCPU 1, MEMORY_MB 512 MiB"
    result = run_script(tmp_path, "--config-file", str(tmp_path / "missing.conf"), "headroom")
    assert result.returncode != 0
    assert result.stderr.strip() == (
        f"placement: configuration file {tmp_path / 'missing.conf'} does not exist")
    result = run_script(tmp_path, "flavors", "add", "m1.bad", "NOT_A_CLASS:1")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "placement-manage flavors: flavor 'm1.bad': no such resource class(es): NOT_A_CLASS."]


@pytest.mark.django_db
def test_flavors_and_headroom_commands(capsys, settings):
    from django.core.management import CommandError, call_command

    from placement_core.querystring import parse_flavors
    from tests.factories import InventoryFactory, ResourceProviderFactory, resource_class

    settings.PLACEMENT_FLAVORS = parse_flavors("m1.tiny=VCPU:1")
    call_command("flavors", "add", "m1.small", "VCPU:2,MEMORY_MB:512")
    capsys.readouterr()
    call_command("flavors", "list", as_json=True)
    assert json.loads(capsys.readouterr().out)["flavors"] == [
        {"name": "m1.tiny", "resources": "VCPU:1", "source": "PLACEMENT_FLAVORS"},
        {"name": "m1.small", "resources": "VCPU:2,MEMORY_MB:512", "source": "stored"}]
    # 8 VCPU and 1024 MB: 8 tiny, 2 small (memory-bound), counted another way too.
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, resource_class=resource_class("VCPU"), total=8)
    InventoryFactory(resource_provider=rp, resource_class=resource_class("MEMORY_MB"), total=1024)
    call_command("headroom", as_json=True)
    figures = {row["flavor"]: row["cloud"] for row in json.loads(capsys.readouterr().out)[
        "headroom"]}
    assert figures == {"m1.tiny": 8 // 1, "m1.small": min(8 // 2, 1024 // 512)}
    call_command("headroom", resources="VCPU:3")
    assert [line.split() for line in capsys.readouterr().out.splitlines()] == [
        ["flavor", "resources", "where", "fit"], ["ad-hoc", "VCPU", "3", "cloud", "2"]]
    with pytest.raises(CommandError, match="no flavor named 'nope'"):
        call_command("headroom", flavor=["nope"])
    with pytest.raises(CommandError, match="usage: flavors delete NAME"):
        call_command("flavors", "delete")
    call_command("flavors", "add", "m1.big", "VCPU:4", dry_run=True)
    assert capsys.readouterr().out.strip() == "would store flavor m1.big: VCPU 4 (dry run)"
    call_command("flavors", "delete", "m1.small", dry_run=True)
    assert capsys.readouterr().out.strip() == "would delete flavor m1.small (dry run)"
    call_command("flavors", "list", as_json=True)
    assert [f["name"] for f in json.loads(capsys.readouterr().out)["flavors"]] == [
        "m1.tiny", "m1.small"]
    with pytest.raises(CommandError, match="already exists"):
        call_command("flavors", "add", "m1.small", "VCPU:1", dry_run=True)
    call_command("flavors", "delete", "m1.small")
    with pytest.raises(CommandError, match="No stored flavor 'm1.small'"):
        call_command("flavors", "delete", "m1.small")
