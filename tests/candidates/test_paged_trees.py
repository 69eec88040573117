"""A search with a limit loads the trees a page of roots at a time. Its
answer must be exactly the first ``limit`` candidates of the unlimited
answer: across pages, with sharing providers whose own tree comes late, and
with the first pages holding no candidate at all."""
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from providers.models import ResourceProvider as ProviderRow
from tests.support.api import assert_limited_is_head

URL = "/allocation_candidates?resources=VCPU:1,DISK_GB:10"


@pytest.fixture
def cloud(world, settings):
    settings.PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES = False
    agg = world.aggregate()
    nodes = []
    for i in range(130):
        # The first 70 are full: the first page of roots has no candidate.
        total = 1 if i >= 70 else 0
        root = world.provider(f"cn{i:03}", aggs=[agg] if i % 3 else [])
        world.provider(f"cn{i:03}-numa", parent=root,
                       inventory={"VCPU": {"total": 4, "reserved": 4 - 4 * total}})
        nodes.append(root)
    # Every third node has its own disk; the others use the pool.
    for root in nodes[::3]:
        world.provider(f"{root.name}-disk", parent=root, inventory={"DISK_GB": 100})
    # The sharing pool's tree is the last root of all.
    world.provider("pool", inventory={"DISK_GB": 10000}, aggs=[agg],
                   traits=["MISC_SHARES_VIA_AGGREGATE"])
    return nodes


def _ids_in(statement):
    """The provider ids an inventory read names (after its usage's WHERE)."""
    return {int(x) for x in re.findall(r"\d+", statement.split("WHERE", 2)[-1])}


def _get(api, query):
    response = api.get(query, mv="1.39")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize("limit", [1, 7, 40, 59, 60, 200])
def test_limited_answer_is_the_unlimited_answers_head(api, cloud, limit):
    full = _get(api, URL)
    assert len(full["allocation_requests"]) == 60  # nodes 70..129
    part = _get(api, f"{URL}&limit={limit}")
    assert_limited_is_head(full, part, limit)


def test_a_small_limit_reads_only_the_first_pages(api, cloud):
    with CaptureQueriesContext(connection) as small:
        _get(api, f"{URL}&limit=1")
    with CaptureQueriesContext(connection) as everything:
        _get(api, URL)
    loaded_small = [q["sql"] for q in small.captured_queries
                    if "FROM inventories i LEFT JOIN" in q["sql"]]
    loaded_all = sum(1 for q in everything.captured_queries
                     if "FROM inventories i LEFT JOIN" in q["sql"])
    # The pool reaching the first tree, then that tree alone: the 70 full
    # trees before it have no VCPU to give at all and are never loaded.
    assert len(loaded_small) == 2
    first, full = cloud[70], cloud[:70]
    read = _ids_in(loaded_small[-1])
    assert {first.id, first.id + 1} <= read  # the root and its NUMA child
    assert not read & {root.id for root in full}
    assert loaded_all == 2  # the sharing providers, then every tree at once


def test_trees_that_cannot_serve_are_never_loaded(api, world, settings):
    """Ironic-style nodes before the compute nodes: a VCPU request reads
    the facts of every tree but loads only the compute nodes it returns."""
    settings.PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES = False
    for i in range(60):
        world.provider(f"bm{i:03}", inventory={"CUSTOM_BAREMETAL_GOLD": 1})
    nodes = [world.provider(f"cn{i:03}", inventory={"VCPU": 4}) for i in range(20)]
    with CaptureQueriesContext(connection) as ctx:
        body = _get(api, "/allocation_candidates?resources=VCPU:1&limit=3")
    assert [next(iter(ar["allocations"])) for ar in body["allocation_requests"]] == [
        n.uuid for n in nodes[:3]]
    (loaded,) = [q["sql"] for q in ctx.captured_queries
                 if "FROM inventories i LEFT JOIN" in q["sql"]]
    ids = _ids_in(loaded)
    assert {n.id for n in nodes[:3]} <= ids
    assert not ids & {p.id for p in ProviderRow.objects.filter(name__startswith="bm")}


def test_pages_count_the_usage_of_their_providers(api, world, settings):
    settings.PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES = False
    nodes = [world.provider(f"n{i:03}", inventory={"VCPU": 2, "DISK_GB": 100})
             for i in range(120)]
    for node in nodes[:60]:
        world.allocate(node, "VCPU", 2)  # full
    world.allocate(nodes[60], "VCPU", 1)
    body = _get(api, f"{URL}&limit=5")
    named = [next(iter(ar["allocations"])) for ar in body["allocation_requests"]]
    assert named == [n.uuid for n in nodes[60:65]]
    assert body["provider_summaries"][nodes[60].uuid]["resources"]["VCPU"] == {
        "capacity": 2, "used": 1}


def test_one_range_of_ids_covers_a_small_cloud(api, cloud):
    """Every provider id lies in the first range read (1,000 ids from the
    lowest), so the facts of the trees are read once."""
    with CaptureQueriesContext(connection) as ctx:
        body = _get(api, f"{URL}&limit=200")
    assert len(body["allocation_requests"]) == 60
    fact_reads = [q["sql"] for q in ctx.captured_queries
                  if "SELECT p.root_provider_id, 0" in q["sql"]]
    assert len(fact_reads) == 1, fact_reads


@pytest.mark.parametrize("limit", [1, 9, 30, 100])
def test_ranges_then_the_most_selective_need_give_the_unlimited_head(
        api, world, settings, monkeypatch, limit):
    """Ranges of 3 ids: the walk soon turns to the trees holding the rarest
    need (the trait, on every fourth nested host), and the answer is still
    the unlimited answer's head, sharing pool and summaries included."""
    from candidates import paging

    monkeypatch.setattr(paging, "FIRST_RANGE", 3)
    settings.PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES = False
    agg = world.aggregate()
    for i in range(30):
        world.provider(f"bm{i:02}", inventory={"CUSTOM_BAREMETAL_GOLD": 1})
        root = world.provider(f"host{i:02}", aggs=[agg] if i % 2 else [])
        world.provider(f"host{i:02}-numa", parent=root, inventory={"VCPU": 8},
                       traits=["HW_NUMA_ROOT"] if i % 4 == 0 else [])
        if i % 3 == 0:
            world.provider(f"host{i:02}-disk", parent=root, inventory={"DISK_GB": 100})
    world.provider("pool", inventory={"DISK_GB": 10000}, aggs=[agg],
                   traits=["MISC_SHARES_VIA_AGGREGATE"])
    query = ("/allocation_candidates?resources=DISK_GB:10&resources1=VCPU:2"
             "&required1=HW_NUMA_ROOT&group_policy=none")
    full = _get(api, query)
    assert len(full["allocation_requests"]) > 0
    part = _get(api, f"{query}&limit={limit}")
    assert_limited_is_head(full, part, limit)
