"""manage.py explain_candidates: text, --json, exit codes."""
import json

import pytest

from tests.commands.helpers import run

pytestmark = pytest.mark.django_db


def test_done_when_max_unit_provider_is_named_in_json(world):
    rp = world.provider("cn1", inventory={"VCPU": {"total": 16, "max_unit": 4}})
    code, out = run("explain_candidates", "resources=VCPU:6", "--json")
    assert code == 1
    body = json.loads(out)
    assert body["candidates"] == 0
    steps = body["groups"][0]["steps"]
    assert [(s["kind"], [r["uuid"] for r in s["removed"]]) for s in steps] == [
        ("max_unit", [rp.uuid])]
    assert steps[0]["removed"][0]["numbers"] == {"asked": 6, "max_unit": 4}
    assert body["groups"][0]["closest"][0]["name"] == "cn1"


def test_text_names_the_step_and_exit_0_with_candidates(world):
    world.provider("cn1", inventory={"VCPU": {"total": 16, "max_unit": 4}})
    world.provider("cn2", inventory={"VCPU": 16})
    code, out = run("explain_candidates", "resources=VCPU:6")
    assert code == 0
    assert "resources=VCPU:6 [VCPU] (max_unit): removed 1 providers, 1 left" in out
    assert "cn1" in out and "asked 6 VCPU > max_unit 4" in out
    assert "1 allocation request(s) found." in out


def test_show_caps_the_listing_but_not_the_count(world):
    for n in range(3):
        world.provider(f"cn{n}", inventory={"VCPU": 2})
    code, out = run("explain_candidates", "resources=VCPU:6", "--show", "1")
    assert code == 1
    assert "removed 3 providers" in out and "... and 2 more" in out


@pytest.mark.parametrize("query", ["resources=VCPU:0", "resources=NOPE:1", "limit=x&resources=VCPU:1"])
def test_bad_query_is_one_line_exit_2(world, query):
    code, out = run("explain_candidates", query)
    assert code == 2
    assert out.startswith("bad query: ") and "\n" not in out.strip()
