"""Every maintenance command as an operator reads it (issue 38, item 5), on
the demo cloud (NUMA cells and NICs under each host, a sharing storage pool
in an aggregate): providers taken by name as well as uuid through one
resolver, amounts in the console's units, an aligned table under a header
line, lines that fit a terminal, --json as it was, and bad input answered
with one line in the command's own words."""
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from allocations.models import Allocation
from maintenance.demo import demo_cloud
from operations.models import AllocationChange
from placement_core.texttable import table
from placement_core.units import human_amount, rate
from planning import forecast
from providers.models import Inventory, ProviderAggregate, ResourceProvider
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 132  # a wide terminal; no line of a table goes past it

# The --json documents' top-level keys before the text was reworked (taken
# from main at 9085449): the text changes, the JSON does not.
JSON_KEYS = {
    "provider_tree": {"resource_providers"},
    "headroom": {"headroom"},
    "flavors": {"flavors"},
    # stranded_shapes: added since by the stranded-capacity rework (5fd5efb), not the text's
    "capacity_forecast": {"forecast", "stranded", "stranded_shapes"},
    "drain_what_if": {"consumers", "drained", "fits", "fullest_after", "not_placed", "placed",
                      "targets", "took_ms"},
    "allocation_history": {"changes"},
    "scheduling_failures": {"bucket_hours", "by_reason", "dry_run", "failures", "hours",
                            "pruned", "since", "total"},
    "audit_allocations": {"dry_run", "findings", "fixes", "remaining"},
    "placement_status": {"checks", "failed"},
}
FORECAST_ROW = {"aggregate", "capacity", "days_to_capacity", "days_to_threshold", "percent",
                "r_squared", "resource_class", "samples", "since", "trend_per_day", "used"}


@pytest.fixture
def cloud():
    demo_cloud()
    root = ResourceProvider.objects.get(name="compute-01")
    return root


def _header(text, *words):
    """The first line naming every one of ``words`` (a table's header)."""
    for line in text.splitlines():
        if all(re.search(rf"\b{re.escape(w)}\b", line) for w in words):
            return line
    raise AssertionError(f"no header line with {words} in:\n{text}")


def _columns_line_up(text, header):
    """Each row under ``header`` starts its second column where the header's
    second title starts (an aligned table, not tab-separated values)."""
    assert "\t" not in text
    lines = text.splitlines()
    start = lines.index(header)
    second = re.search(r"\S+\s{2,}(\S)", header).start(1)
    rows = [line for line in lines[start + 1:] if line.strip()][:3]
    assert rows, text
    for row in rows:
        assert row[second - 2:second] == "  " or row[second - 1] == " ", (header, row)


def _fits(text):
    long = [line for line in text.splitlines() if len(line) > WIDTH]
    assert not long, f"{len(long)} line(s) past {WIDTH}: {long[0]!r}"


def _ok(*args):
    code, out = run(*args)
    assert code in (0, 1), out
    _fits(out)
    return out


def test_provider_tree_by_name_in_units(cloud):
    out = _ok("provider_tree", "--root", "compute-01")
    header = _header(out, "provider", "class", "used", "capacity")
    _columns_line_up(out, header)
    memory = Inventory.objects.get(resource_provider=cloud, resource_class__name="MEMORY_MB")
    used = sum(Allocation.objects.filter(resource_provider=cloud, resource_class__name="MEMORY_MB")
               .values_list("used", flat=True))
    assert human_amount(used, "MEMORY_MB").endswith("GiB")
    row = next(line for line in out.splitlines() if line.startswith("compute-01 "))
    assert human_amount(used, "MEMORY_MB") in row and human_amount(
        memory.capacity, "MEMORY_MB") in row
    assert "compute-02" not in out  # only the tree named
    assert "Gbit/s" in out  # the NIC's bandwidth


def test_allocation_history_takes_a_name_as_drain_does(cloud):
    by_name = _ok("allocation_history", "--provider", "compute-01")
    by_uuid = _ok("allocation_history", "--provider", cloud.uuid.upper())
    assert by_name == by_uuid
    header = _header(by_name, "time", "consumer", "provider", "class", "before", "after")
    _columns_line_up(by_name, header)
    rows = AllocationChange.objects.filter(provider_uuid=cloud.uuid).count()
    assert rows and len(by_name.strip().splitlines()) == rows + 1
    assert "GiB" in by_name and "compute-01" in by_name
    # --json is unchanged: every change of the provider, uuids as stored.
    code, out = run("allocation_history", "--provider", "compute-01", "--json")
    data = json.loads(out)
    assert set(data) == JSON_KEYS["allocation_history"] and len(data["changes"]) == rows


def test_capacity_forecast_in_units_with_aggregates_named(cloud):
    pool = ResourceProvider.objects.get(name="storage-pool")
    aggregate = ProviderAggregate.objects.filter(resource_provider=pool).get().aggregate.uuid
    out = _ok("capacity_forecast", "--aggregate", "storage-pool")
    assert out == _ok("capacity_forecast", "--aggregate", aggregate)
    header = _header(out, "scope", "class", "used", "trend")
    _columns_line_up(out, header)
    assert aggregate not in out and "storage-pool" in out
    memory = next(line for line in out.splitlines() if " MEMORY_MB " in line)
    assert re.search(r"GiB of [\d.,]+ GiB", memory) and re.search(r"[+-][\d.,]+ (GiB|MiB)/day",
                                                                  memory)
    bandwidth = next(line for line in out.splitlines() if "NET_BW_EGR" in line)
    assert "bit/s" in bandwidth
    data = json.loads(run("capacity_forecast", "--json")[1])
    assert set(data) == JSON_KEYS["capacity_forecast"] == set(forecast.report())
    assert set(data["forecast"]["rows"][0]) == FORECAST_ROW


def test_drain_what_if_in_units(cloud):
    out = _ok("drain_what_if", "--provider", "compute-01")
    header = _header(out, "consumer", "from", "to")
    _columns_line_up(out, header)
    _columns_line_up(out, _header(out, "provider", "class", "used", "was"))
    assert "GiB of" in out and "Gbit/s" in out
    data = json.loads(run("drain_what_if", "--provider", "compute-01", "--json")[1])
    assert set(data) == JSON_KEYS["drain_what_if"]
    # The aggregate by a member's name, as the forecast takes it.
    code, out = run("drain_what_if", "--aggregate", "storage-pool")
    assert code in (0, 1) and "storage-pool" in out, out


def test_headroom_and_flavors_are_tables_in_units(cloud):
    assert run("flavors", "add", "m1.medium", "VCPU:2,MEMORY_MB:4096,DISK_GB:40")[0] == 0
    out = _ok("headroom", "--aggregates")
    header = _header(out, "flavor", "resources", "fit")
    _columns_line_up(out, header)
    assert "MEMORY_MB 4 GiB" in out and "DISK_GB 40 GiB" in out
    assert "storage-pool" in out  # the aggregate by its members
    out = _ok("flavors", "list")
    _columns_line_up(out, _header(out, "flavor", "resources", "source"))
    assert "4 GiB" in out
    assert set(json.loads(run("headroom", "--json")[1])) == JSON_KEYS["headroom"]
    assert set(json.loads(run("flavors", "list", "--json")[1])) == JSON_KEYS["flavors"]


def test_audit_status_and_failures_have_headers(cloud):
    out = _ok("audit_allocations")
    _header(out, "finding", "count")
    out = _ok("placement_status")
    _header(out, "check", "result")
    out = _ok("scheduling_failures", "--hours", "720")
    _header(out, "kind", "reason", "count")
    for name, args in (("audit_allocations", ()), ("placement_status", ()),
                       ("scheduling_failures", ())):
        data = json.loads(run(name, *args, "--json")[1])
        assert set(data) == JSON_KEYS[name], name


def test_snapshot_dry_run_in_units(cloud):
    out = _ok("take_usage_snapshot", "--dry-run", "--force")
    _columns_line_up(out, _header(out, "scope", "class", "used"))
    assert "GiB" in out


@pytest.mark.parametrize("args, option", [
    (("capacity_forecast", "--window-days", "0"), "--window-days"),
    (("capacity_forecast", "--threshold-percent", "500"), "--threshold-percent"),
    (("scheduling_failures", "--hours", "0"), "--hours"),
    (("allocation_history", "--provider", "nowhere-01"), "nowhere-01"),
    (("drain_what_if", "--provider", "nowhere-01"), "nowhere-01"),
    (("provider_tree", "--root", "nowhere-01"), "nowhere-01"),
    (("capacity_forecast", "--aggregate", "nowhere-01"), "nowhere-01"),
])
def test_bad_input_is_one_line_in_the_commands_words(cloud, args, option):
    code, out = run(*args)
    assert code == 2
    assert len(out.strip().splitlines()) == 1, out
    assert option in out
    assert "query string" not in out and "Traceback" not in out


def test_explain_candidates_tables_in_units(cloud):
    code, out = run("explain_candidates", "resources=VCPU:4,MEMORY_MB:300000")
    assert code == 1
    _fits(out)
    _columns_line_up(out, _header(out, "provider", "why"))
    _header(out, "provider", "class", "why", "not")
    memory = Inventory.objects.filter(resource_class__name="MEMORY_MB").first()
    assert f"> max_unit {human_amount(memory.max_unit, 'MEMORY_MB')}" in out
    assert cloud.uuid not in out  # providers by name


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("args", [("audit_allocations",)])
def test_progress_only_on_a_terminal(cloud, args):
    """Long work says where it is on a terminal's stderr, one rewritten line
    cleared at the end; a pipe (cron, a script) gets nothing of it."""
    terminal, pipe, out = _Terminal(), io.StringIO(), io.StringIO()
    for stderr in (terminal, pipe):
        try:
            call_command(*args, stdout=out, stderr=stderr)
        except SystemExit:
            pass
    shown = terminal.getvalue()
    assert "[1/" in shown and shown.endswith("\r\x1b[K")
    assert pipe.getvalue() == ""


@pytest.mark.parametrize("args, line", [
    (["--window-days", "0"],
     "manage.py capacity_forecast: --window-days must be a whole number from 1 to 3650."),
    (["--window-days", "x"],
     "manage.py capacity_forecast: error: argument --window-days: invalid int value: 'x'"),
])
def test_a_command_line_error_is_one_line_in_its_words(tmp_path, args, line):
    """As a shell shows it: no 'CommandError:', no usage block, exit 2."""
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{tmp_path / 'cli.sqlite3'}")
    result = subprocess.run([sys.executable, "manage.py", "capacity_forecast", *args],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [line] and result.stdout == ""


@pytest.mark.parametrize("per_day, rc, text", [
    (10.0, "VCPU", "+10/day"), (3.439, "VCPU", "+3.4/day"), (-0.04, "VCPU", "0/day"),
    (1234567.0, "CUSTOM_X", "+1,234,567/day"), (10935.2, "MEMORY_MB", "+10.7 GiB/day"),
    (222010, "NET_BW_EGR_KILOBIT_PER_SEC", "+222.0 Mbit/s/day"), (-2048, "DISK_GB", "-2 TiB/day"),
    (None, "VCPU", "-"),
])
def test_a_trend_in_units(per_day, rc, text):
    assert rate(per_day, rc) == text


def test_a_table_aligns_cuts_and_has_a_header():
    lines = table(["name", "count"], [["a", 1], ["much-longer", 100], ["x" * 60, None]],
                  right=(1,), max_cell=20)
    assert lines == ["name                  count",
                     "a                         1",
                     "much-longer             100",
                     "xxxxxxxxxxxxxxxxxxx…      -"]
