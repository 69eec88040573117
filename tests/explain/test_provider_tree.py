"""manage.py provider_tree: text, dot and json exports of the forest."""
import json

import pytest

from tests.commands.helpers import run

pytestmark = pytest.mark.django_db


@pytest.fixture
def forest(world):
    cn = world.provider("cn1", inventory={"DISK_GB": 100})
    numa = world.provider("cn1-numa0", parent=cn, inventory={"VCPU": 8, "PCPU": 4})
    world.provider("cn1-numa0-nic", parent=numa, traits=["HW_NIC_SRIOV"])
    world.allocate(numa, "VCPU", 3)
    other = world.provider('odd "name"', inventory={"VCPU": 2})
    return {"cn": cn, "numa": numa, "other": other}


def test_dot_is_a_digraph_with_every_provider_and_edge(forest):
    code, out = run("provider_tree", "--format", "dot")
    assert code == 0
    assert out.startswith("digraph placement {") and out.rstrip().endswith("}")
    from providers.models import ResourceProvider

    for rp in ResourceProvider.objects.all():
        assert f'"{rp.uuid}" [label=' in out
    assert f'"{forest["cn"].uuid}" -> "{forest["numa"].uuid}";' in out
    assert out.count("->") == 2
    assert "VCPU 3/8" in out and 'odd \\"name\\"' in out


def test_text_indents_children_and_shows_usage(forest):
    code, out = run("provider_tree")
    lines = out.splitlines()
    assert code == 0
    assert lines[0].split() == ["provider", "class", "used", "capacity", "use", "consumers",
                                "note"]
    assert lines[1].startswith("cn1 ") and lines[1].split()[1:6] == ["DISK_GB", "0", "GiB",
                                                                      "100", "GiB"]
    # cn1-numa0's classes, one row each, the consumer count on its first.
    numa = [line.split() for line in lines[2:4]]
    assert lines[2].startswith("  cn1-numa0 ")
    assert numa == [["cn1-numa0", "PCPU", "0", "4", "0%", "1"], ["VCPU", "3", "8", "38%"]]
    assert lines[4].startswith("    cn1-numa0-nic ") and "(no inventory)" in lines[4]


def test_json_and_root_filter(forest):
    code, out = run("provider_tree", "--format", "json", "--root", forest["numa"].uuid)
    nodes = json.loads(out)["resource_providers"]
    assert code == 0
    assert [n["name"] for n in nodes] == ["cn1", "cn1-numa0", "cn1-numa0-nic"]
    numa = nodes[1]
    assert numa["parent_uuid"] == forest["cn"].uuid and numa["root_uuid"] == forest["cn"].uuid
    assert numa["inventories"]["VCPU"]["used"] == 3 and numa["inventories"]["VCPU"]["capacity"] == 8
    assert nodes[2]["traits"] == ["HW_NIC_SRIOV"] and nodes[2]["depth"] == 2


def test_unknown_root_exits_2(forest):
    code, out = run("provider_tree", "--root", "00000000-0000-0000-0000-00000000abcd")
    assert code == 2 and "No resource provider" in out and "abcd" in out


def test_bounded_queries(forest, django_assert_max_num_queries):
    with django_assert_max_num_queries(7):
        code, out = run("provider_tree", "--format", "json")
    assert code == 0
    nodes = json.loads(out)["resource_providers"]
    assert sorted(n["name"] for n in nodes) == ["cn1", "cn1-numa0", "cn1-numa0-nic", 'odd "name"']
