"""manage.py drain_what_if: text, --json, --help, exit codes."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.commands.helpers import run

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cloud(world):
    a = world.provider("a", inventory={"VCPU": 8, "MEMORY_MB": 4096})
    world.provider("b", inventory={"VCPU": 8, "MEMORY_MB": 4096})
    world.consumer({a: {"VCPU": 4, "MEMORY_MB": 1024}}, uuid="11111111-1111-4111-8111-111111111111")
    return a


def test_text_when_it_fits(cloud):
    code, out = run("drain_what_if", "--provider", "a")
    assert code == 0
    assert "verdict: FITS" in out
    lines = out.splitlines()
    placed = lines.index("placed:")
    assert lines[placed + 1].split() == ["consumer", "from", "resources", "to"]
    assert lines[placed + 2].split() == ["11111111", "a", "MEMORY_MB", "1", "GiB,", "VCPU",
                                         "4", "b"]
    fullest = lines.index("fullest providers after:")
    assert lines[fullest + 1].split() == ["provider", "class", "used", "use", "was"]
    assert ["b", "VCPU", "4", "of", "8", "50%", "0"] in [line.split() for line in lines]


def test_json_and_exit_1_when_it_does_not_fit(cloud, world):
    big = world.provider("big", inventory={"VCPU": 64})
    world.consumer({big: {"VCPU": 20}})
    code, out = run("drain_what_if", "--tree", cloud.uuid, "--provider", "big", "--json")
    assert code == 1
    body = json.loads(out)
    assert body["fits"] is False and body["consumers"] == 2
    assert body["not_placed"][0]["reason"]["kind"] == "max_unit"
    assert body["placed"][0]["to"][0]["name"] == "b"


@pytest.mark.parametrize("args, words", [
    ([], "Name what to drain"),
    (["--provider", "nope"], "No resource provider with uuid or name 'nope'."),
    (["--aggregate", "x"], "No aggregate 'x': give an aggregate uuid or the name of a "
                           "provider in one."),
    (["--aggregate", "a"], "Provider 'a' is in no aggregate."),
    (["--provider", "a", "--fullest", "-1"], "must be 0 or more"),
])
def test_bad_input_is_one_line_exit_2(cloud, args, words):
    code, out = run("drain_what_if", *args)
    assert code == 2
    assert words in out and "\n" not in out.strip()


def test_help():
    out = subprocess.run([sys.executable, "manage.py", "drain_what_if", "--help"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert "--provider" in out and "--json" in out and "Exit codes" in out
