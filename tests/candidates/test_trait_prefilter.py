"""Trees without a required trait are left in the database.

A tree can serve a group's required traits only if some provider of it holds
one of each set, so the search does not load the others (half of upstream's
perfload cloud); the answer is exactly what judging every tree gives, with
and without a limit, with the trait on a provider that has no inventory of
its own, and with sharing providers (which can bring the trait from outside
the tree, so nothing is left out then).
"""
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.support.world import uuids_in

URL = "/allocation_candidates"


@pytest.fixture
def cloud(world, settings):
    """12 compute nodes with a NUMA child holding VCPU; every third has AVX2
    on its root (no inventory there, so only loaded, never an answer),
    every fourth on its child."""
    settings.PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES = False
    nodes = {}
    for i in range(12):
        root = world.provider(f"cn{i:02}", traits=["HW_CPU_X86_AVX2"] if i % 3 == 0 else [])
        child = world.provider(f"cn{i:02}-numa", parent=root, inventory={"VCPU": 8},
                               traits=["HW_CPU_X86_AVX2"] if i % 4 == 0 else [])
        nodes[i] = (root, child)
    return nodes


def _trait_statement_ids(queries) -> int:
    """How many provider ids the statement loading providers' traits names."""
    for q in queries:
        sql = q["sql"]
        if sql.startswith("SELECT t.resource_provider_id, t.trait_id"):
            found = re.search(r"\{([0-9,]*)\}", sql)  # PostgreSQL: one array
            if found:
                return len(found.group(1).split(","))
            return len(re.search(r"IN \(([^)]*)\)", sql).group(1).split(","))
    return 0


def _inventory_statement_ids(queries):
    """The provider ids the inventories read (Q1) is limited to, or None
    when it reads every provider's inventories."""
    for q in queries:
        sql = q["sql"]
        if sql.startswith("SELECT i.resource_provider_id, i.resource_class_id, i.total"):
            tail = sql.rsplit(" AND ", 1)[-1]
            if "i.resource_provider_id" not in tail:
                return None
            found = re.search(r"\{([0-9,]*)\}", tail) or re.search(r"IN \(([^)]*)\)", tail)
            return {int(x) for x in found.group(1).split(",")}
    raise AssertionError("no inventories read")


def _get(api, query):
    with CaptureQueriesContext(connection) as ctx:
        response = api.get(query, mv="1.39")
    assert response.status_code == 200, response.content
    return response.json(), ctx.captured_queries


def test_only_trees_holding_the_trait_are_loaded_and_answered(api, cloud):
    body, queries = _get(api, URL + "?resources=VCPU:1&required=HW_CPU_X86_AVX2")
    # The unsuffixed group is judged on the providers it uses: only the
    # trees whose NUMA child has the trait answer.
    assert uuids_in(body) == {frozenset([cloud[i][1].uuid]) for i in (0, 4, 8)}
    # Loaded: both providers of each tree holding the trait anywhere
    # (0 3 4 6 8 9), nothing of the six others.
    assert _trait_statement_ids(queries) == 2 * 6
    # Only those trees' inventories are read, and their usage summed.
    held = {p.pk for i in (0, 3, 4, 6, 8, 9) for p in cloud[i]}
    assert _inventory_statement_ids(queries) == held


def test_any_of_sets_and_a_granular_group(api, cloud):
    query = (URL + "?resources1=VCPU:1&required1=in:HW_CPU_X86_AVX2,HW_CPU_X86_SSE"
             "&resources2=VCPU:1&group_policy=none")
    body, _ = _get(api, query)
    # Group 1 needs the trait on the NUMA child itself: only i % 4 == 0.
    expected = {frozenset([cloud[i][1].uuid]) for i in (0, 4, 8)}
    assert uuids_in(body) == expected


@pytest.mark.parametrize("limit", [1, 2, 5, 6])
def test_limited_answer_is_the_head_of_the_full_one(api, cloud, limit):
    query = URL + "?resources=VCPU:1&required=HW_CPU_X86_AVX2"
    full, _ = _get(api, query)
    part, _ = _get(api, f"{query}&limit={limit}")
    assert part["allocation_requests"] == full["allocation_requests"][:limit]


def test_a_sharing_provider_can_bring_the_trait(api, world, cloud):
    agg = world.aggregate()
    # cn01 (no AVX2 anywhere) reaches a shared disk pool that has AVX2.
    root, _ = cloud[1]
    from providers.models import ProviderAggregate

    ProviderAggregate.objects.create(resource_provider=root, aggregate=agg)
    pool = world.provider("pool", inventory={"DISK_GB": 1000}, aggs=[agg],
                          traits=["MISC_SHARES_VIA_AGGREGATE", "HW_CPU_X86_AVX2"])
    body, _ = _get(api, URL + "?resources=VCPU:1,DISK_GB:10&required=HW_CPU_X86_AVX2")
    assert uuids_in(body) == {frozenset([cloud[1][1].uuid, pool.uuid])}


def test_each_inventory_row_is_filed_once(api, cloud, monkeypatch):
    """The trees' inventories are read once and filed once: not once per
    provider of those trees (at 3,000 providers that was 2 million filings
    and ten seconds for one search)."""
    from candidates import context

    filed = []
    real = context.add_inventory

    def counting(ctx, rows, smallest=None):
        rows = list(rows)
        filed.extend(rows)
        return real(ctx, rows, smallest)

    monkeypatch.setattr(context, "add_inventory", counting)
    _get(api, URL + "?resources=VCPU:1&required=HW_CPU_X86_AVX2")
    # One VCPU inventory per tree holding the trait (0 3 4 6 8 9).
    assert len(filed) == 6
