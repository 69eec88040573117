"""A search with a limit loads the trees a page of roots at a time. Its
answer must be exactly the first ``limit`` candidates of the unlimited
answer: across pages, with sharing providers whose own tree comes late, and
with the first pages holding no candidate at all."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

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


def _get(api, query):
    response = api.get(query, mv="1.39")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize("limit", [1, 7, 40, 59, 60, 200])
def test_limited_answer_is_the_unlimited_answers_head(api, cloud, limit):
    full = _get(api, URL)
    assert len(full["allocation_requests"]) == 60  # nodes 70..129
    part = _get(api, f"{URL}&limit={limit}")
    head = full["allocation_requests"][:limit]
    assert part["allocation_requests"] == head
    named = {u for ar in head for u in ar["allocations"]}
    roots = {full["provider_summaries"][u]["root_provider_uuid"] for u in named}
    expected = {u: s for u, s in full["provider_summaries"].items()
                if s["root_provider_uuid"] in roots}
    assert part["provider_summaries"] == expected


def test_a_small_limit_reads_only_the_first_pages(api, cloud):
    with CaptureQueriesContext(connection) as small:
        _get(api, f"{URL}&limit=1")
    with CaptureQueriesContext(connection) as everything:
        _get(api, URL)
    loaded_small = sum(1 for q in small.captured_queries if "FROM inventories i LEFT JOIN" in q["sql"])
    loaded_all = sum(1 for q in everything.captured_queries
                     if "FROM inventories i LEFT JOIN" in q["sql"])
    # The sharing providers, then two pages (50 roots: all full; then 100).
    assert loaded_small == 3
    assert loaded_all == 2  # the sharing providers, then every tree at once


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


def test_a_short_page_is_the_last_one_read(api, cloud):
    """131 roots and pages of at least 200 (the limit): the first page comes
    back short, so no second read of roots follows it."""
    with CaptureQueriesContext(connection) as ctx:
        body = _get(api, f"{URL}&limit=200")
    assert len(body["allocation_requests"]) == 60
    root_reads = [q["sql"] for q in ctx.captured_queries
                  if "FROM resource_providers WHERE parent_provider_id IS NULL" in q["sql"]]
    assert len(root_reads) == 1, root_reads
