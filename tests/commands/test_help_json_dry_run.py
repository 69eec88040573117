"""The promise of docs/commands.md: each has --help and --json, and
each that changes data takes --dry-run, which changes nothing and says what
a real run would do."""
import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command, get_commands, load_command_class
from django.utils import timezone

from operations import snapshots
from operations.models import AllocationChange, UsageSnapshot
from tests import factories as f
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
MAINTENANCE = sorted(p.stem for p in (ROOT / "maintenance" / "management" / "commands")
                     .glob("*.py") if p.stem != "__init__")
COMMANDS = MAINTENANCE + ["policy_show", "login_unlock"]
# The commands that change data (audit_allocations does with --fix).
CHANGING = {"sync_catalog", "audit_allocations", "heal_consumers", "load_json",
            "import_upstream", "prune_allocation_history", "take_usage_snapshot",
            "demo_cloud", "flavors", "scheduling_failures", "login_unlock"}


def _parser(name):
    return load_command_class(get_commands()[name], name).create_parser("manage.py", name)


@pytest.mark.parametrize("name", COMMANDS)
def test_help_names_json_and_dry_run_where_data_changes(name):
    text = _parser(name).format_help()
    assert "--json" in text
    assert ("--dry-run" in text) == (name in CHANGING), name


def test_help_runs_as_a_command():
    done = subprocess.run([sys.executable, "manage.py", "policy_show", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--json" in done.stdout


def test_policy_show_json_is_the_effective_policy(settings):
    code, out = run("policy_show", "--json")
    assert code == 0, out
    body = json.loads(out)
    rules = {r["name"]: r for r in body["rules"]}
    assert rules["placement:reshaper:reshape"]["check_str"] == "rule:service_api"
    assert rules["placement:explain"]["operations"] == [{"method": "GET", "path": "/explain"}]
    assert body["settings"]["PLACEMENT_ENFORCE_SCOPE"] is True
    code, out = run("policy_show", "--sample", "--json")
    assert json.loads(out)["rules"][0]["from"] == "default"
    code, out = run("policy_show", "--roles", "reader", "--json")
    checked = json.loads(out)["checks"]
    assert checked["placement:usages"] is True
    assert checked["placement:resource_providers:create"] is False


def test_prune_allocation_history_dry_run(settings):
    settings.PLACEMENT_ALLOCATION_HISTORY_RETENTION_DAYS = 7
    rp = f.InventoryFactory().resource_provider
    from allocations.services import allocations_set
    from tests.support.claims import PROJECT, USER, new_uuid

    allocations_set(consumer_uuid=new_uuid(), allocations={rp.uuid: {"VCPU": 1}},
                    project_id=PROJECT, user_id=USER, consumer_generation=None)
    AllocationChange.objects.update(created_at=timezone.now() - timezone.timedelta(days=8))
    code, out = run("prune_allocation_history", "--dry-run", "--json")
    assert code == 0 and json.loads(out) == {"pruned": 1, "dry_run": True}
    assert AllocationChange.objects.count() == 1
    assert "would prune 1" in run("prune_allocation_history", "--dry-run")[1]
    assert json.loads(run("prune_allocation_history", "--json")[1]) == {
        "pruned": 1, "dry_run": False}
    assert not AllocationChange.objects.exists()


def test_take_usage_snapshot_dry_run(settings):
    settings.PLACEMENT_USAGE_SNAPSHOT_RETENTION_DAYS = 7
    f.AllocationFactory(resource_provider=f.InventoryFactory(total=8).resource_provider, used=3)
    snapshots.take(now=timezone.now() - timezone.timedelta(days=8))
    old = UsageSnapshot.objects.count()
    code, out = run("take_usage_snapshot", "--dry-run", "--force", "--json")
    body = json.loads(out)
    assert code == 0 and body["dry_run"] is True
    assert body["written"] == 1 and body["pruned"] == old
    assert body["rows"] == [{"aggregate_uuid": "", "resource_class": "VCPU",
                             "capacity": 8, "used": 3}]
    assert UsageSnapshot.objects.count() == old
    out = StringIO()
    call_command("take_usage_snapshot", "--dry-run", "--force", stdout=out)
    assert "would write 1 row(s)" in out.getvalue()
    assert UsageSnapshot.objects.count() == old
