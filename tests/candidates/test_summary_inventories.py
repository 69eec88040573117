"""Provider summaries list every inventory of a summarized provider, in
inventory order, with its capacity and usage: those the search loaded (it
reuses them) and those it did not (other classes, or too full to serve).
"""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from providers.models import Inventory

URL = "/allocation_candidates"


@pytest.fixture
def tree(world):
    """cn: DISK_GB, then CUSTOM_GOLD (never asked for); numa0: VCPU with
    room, MEMORY_MB; numa1: VCPU full, then MEMORY_MB."""
    w = world
    w.cn = w.provider("cn", inventory={"DISK_GB": 100, "CUSTOM_GOLD": 3},
                      traits=["HW_CPU_X86_AVX2"])
    w.n0 = w.provider("numa0", parent=w.cn, inventory={"VCPU": 8, "MEMORY_MB": 4096})
    w.n1 = w.provider("numa1", parent=w.cn,
                      inventory={"VCPU": {"total": 4, "allocation_ratio": 2.0},
                                 "MEMORY_MB": 4096})
    w.allocate(w.n0, "VCPU", 3)
    w.allocate(w.n1, "VCPU", 8)  # full at ratio 2
    w.allocate(w.cn, "CUSTOM_GOLD", 1)
    return w


def _expected(providers, classes=None):
    out = {}
    for rp in providers:
        rows = Inventory.objects.filter(resource_provider=rp).order_by("id")
        out[rp.uuid] = {
            inv.resource_class.name: {"capacity": inv.capacity,
                                      "used": sum(a.used for a in rp.allocations.filter(
                                          resource_class=inv.resource_class))}
            for inv in rows if classes is None or inv.resource_class.name in classes
        }
    return out


def _summaries(api, query, mv):
    response = api.get(URL + query, mv=mv)
    assert response.status_code == 200, response.content
    body = response.json()
    return body, {u: s["resources"] for u, s in body["provider_summaries"].items()}


def test_every_inventory_of_the_tree_in_inventory_order(api, tree):
    body, got = _summaries(api, "?resources=VCPU:1,DISK_GB:10", "1.39")
    assert len(body["allocation_requests"]) == 1  # numa1 is full
    expected = _expected([tree.cn, tree.n0, tree.n1])
    assert got == expected
    # Key order too: the order the inventories were made in.
    assert [list(r) for r in got.values()] == [list(r) for r in expected.values()]
    assert got[tree.n1.uuid]["VCPU"] == {"capacity": 8, "used": 8}
    assert got[tree.cn.uuid]["CUSTOM_GOLD"] == {"capacity": 3, "used": 1}


def test_before_1_27_only_the_requested_classes(api, tree):
    _, got = _summaries(api, "?resources=VCPU:1", "1.26")
    # Before 1.29 only the providers used; before 1.27 only VCPU.
    assert got == _expected([tree.n0], classes={"VCPU"})


# The statement that reads the summaries' inventories the search did not.
SUMMARY_READ = "FROM inventories i JOIN resource_classes rc"


@pytest.mark.parametrize("scope", ["&required=HW_CPU_X86_AVX2", "&limit=10"])
def test_trees_chosen_first_are_read_whole_once(api, tree, settings, scope):
    """With a required trait (no sharing provider) or a limit, the trees
    are known before their inventories: one read of all their inventories
    serves both the search and the summaries, the too-full VCPU and the
    never-asked-for CUSTOM_GOLD included."""
    settings.PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES = False
    with CaptureQueriesContext(connection) as ctx:
        body, got = _summaries(api, "?resources=VCPU:1,DISK_GB:10" + scope, "1.39")
    assert len(body["allocation_requests"]) == 1
    expected = _expected([tree.cn, tree.n0, tree.n1])
    assert got == expected
    assert [list(r) for r in got.values()] == [list(r) for r in expected.values()]
    assert not [q["sql"] for q in ctx.captured_queries if SUMMARY_READ in q["sql"]]


def test_unscoped_search_reads_the_rest_for_the_summaries(api, tree):
    with CaptureQueriesContext(connection) as ctx:
        _, got = _summaries(api, "?resources=VCPU:1,DISK_GB:10", "1.39")
    assert got == _expected([tree.cn, tree.n0, tree.n1])
    assert len([q for q in ctx.captured_queries if SUMMARY_READ in q["sql"]]) == 1
