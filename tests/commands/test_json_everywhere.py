"""Every maintenance command takes --json and then prints one JSON document."""
import json
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class

from tests import factories as f
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db

COMMANDS = sorted(
    p.stem for p in (Path(__file__).resolve().parents[2] / "maintenance" / "management"
                     / "commands").glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("name", COMMANDS)
def test_parser_has_json(name):
    assert get_commands()[name] == "maintenance"
    parser = load_command_class("maintenance", name).create_parser("manage.py", name)
    assert "--json" in parser._option_string_actions


@pytest.mark.parametrize("args, key", [
    (["placement_status"], "checks"),
    (["sync_catalog", "--dry-run"], "would_add"),
    (["prune_allocation_history"], "pruned"),
    (["take_usage_snapshot", "--force"], "written"),
    (["heal_consumers", "--project-id", "p", "--user-id", "u", "--dry-run"], "consumers"),
    (["export_json"], "resource_providers"),
    (["audit_allocations"], "findings"),
    (["provider_tree"], "resource_providers"),
    (["explain_candidates", "resources=VCPU:1"], "candidates"),
])
def test_json_output_parses(args, key):
    f.AllocationFactory(resource_provider=f.InventoryFactory().resource_provider)
    code, out = run(*args, "--json")
    assert code in (0, 1), out
    assert key in json.loads(out)


def test_load_json_reports_counts(tmp_path):
    f.InventoryFactory()
    path = tmp_path / "dump.json"
    assert run("export_json", "-o", str(path))[0] == 0
    code, out = run("load_json", str(path), "--dry-run", "--json")
    body = json.loads(out)
    assert code == 0 and body["dry_run"] is True and body["counts"]


def test_errors_stay_one_line_exit_2_with_json():
    code, out = run("prune_allocation_history", "--days", "-1", "--json")
    assert code == 2 and out == "--days must be >= 0"
