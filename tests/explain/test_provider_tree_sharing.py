"""provider_tree shows which trees a sharing provider serves: a dashed DOT
edge to each served root, ``shares_with`` in JSON, a count in text."""
import json

import pytest

from tests.commands.helpers import run

pytestmark = pytest.mark.django_db


@pytest.fixture
def shared(world):
    agg = world.aggregate()
    cn1 = world.provider("cn1", inventory={"VCPU": 8})
    world.provider("cn1-numa0", parent=cn1, inventory={"PCPU": 4}, aggs=[agg])
    cn2 = world.provider("cn2", inventory={"VCPU": 8}, aggs=[agg])
    cn3 = world.provider("cn3", inventory={"VCPU": 8})  # in no aggregate
    pool = world.provider("pool", inventory={"DISK_GB": 1000}, aggs=[agg],
                          traits=["MISC_SHARES_VIA_AGGREGATE"])
    # In the aggregate, but not sharing: a tree the pool serves, serving none.
    plain = world.provider("plain", inventory={"DISK_GB": 10}, aggs=[agg])
    return {"cn1": cn1, "cn2": cn2, "cn3": cn3, "pool": pool, "plain": plain}


def test_dot_draws_a_dashed_edge_to_each_served_root(shared):
    code, out = run("provider_tree", "--format", "dot")
    pool = shared["pool"].uuid
    assert code == 0
    for served in ("cn1", "cn2", "plain"):
        assert f'"{pool}" -> "{shared[served].uuid}" [style=dashed, label="shares"];' in out
    assert f'"{pool}" -> "{shared["cn3"].uuid}"' not in out
    assert out.count("style=dashed") == 3


def test_json_lists_served_roots_and_text_counts_them(shared):
    _, out = run("provider_tree", "--json")
    nodes = {n["name"]: n for n in json.loads(out)["resource_providers"]}
    assert nodes["pool"]["shares_with"] == sorted(
        shared[name].uuid for name in ("cn1", "cn2", "plain"))
    assert nodes["plain"]["shares_with"] == [] and nodes["cn2"]["shares_with"] == []
    _, text = run("provider_tree")
    pool_line = next(line for line in text.splitlines() if line.startswith("pool "))
    assert pool_line.endswith("shares with 3 trees")
