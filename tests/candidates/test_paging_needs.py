"""A limited search loads only the trees whose facts meet every need
(candidates.paging); the needs must never drop a tree that can serve. Each
query below is answered with a limit and without one on a nested cloud
with two sharing pools, Ironic-style nodes and traits on the pools, with
ranges of 4 ids so that the walk also turns to its rarest need: the limited
answer must be the unlimited one's head."""
import pytest

from candidates import paging, sql
from tests.support.api import assert_limited_is_head

QUERIES = {
    # DISK_GB from the pools or a host's own disk, VCPU from a NUMA cell.
    "spread over a pool": "resources=VCPU:1,DISK_GB:10",
    # Only the pools have SSD: the trait comes from outside the tree.
    "trait on the pool": "resources=VCPU:1,DISK_GB:10&required=STORAGE_DISK_SSD",
    # A trait of the tree's own providers, no pool has it.
    "trait in the tree": "resources=VCPU:1,DISK_GB:10&required=HW_CPU_X86_AVX2",
    "member_of the zone": "resources=VCPU:1,DISK_GB:10&member_of={zone}",
    # Only the NICs and the pools are in it: neither holds VCPU, no answer.
    "member_of the pool aggregate": "resources=VCPU:1,DISK_GB:10&member_of={pool_agg}",
    "in_tree": "resources=VCPU:1&in_tree={host}",
    "suffixed with a trait": ("resources1=VCPU:2&required1=HW_NUMA_ROOT"
                              "&resources2=DISK_GB:10&group_policy=none"),
    "disk alone (pool-only candidates)": "resources=DISK_GB:10",
    "ironic": "resources=CUSTOM_BAREMETAL_GOLD:1",
    "nothing can serve": "resources=CUSTOM_BAREMETAL_GOLD:1,VCPU:1",
}


@pytest.fixture
def cloud(world, settings, monkeypatch):
    monkeypatch.setattr(paging, "FIRST_RANGE", 4)
    settings.PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES = False
    zone, pool_agg = world.aggregate(), world.aggregate()
    hosts = []
    for i in range(24):
        if i % 3 == 0:
            world.provider(f"bm{i:02}", inventory={"CUSTOM_BAREMETAL_GOLD": 1})
        root = world.provider(f"host{i:02}", aggs=[zone] if i % 4 == 0 else [],
                              inventory={"DISK_GB": 50} if i % 5 == 0 else None)
        for cell in range(2):
            world.provider(f"host{i:02}-numa{cell}", parent=root,
                           inventory={"VCPU": 4 if (i + cell) % 3 else 0},
                           traits=["HW_NUMA_ROOT"] + (["HW_CPU_X86_AVX2"] if i % 6 == 1 else []))
        if i % 2:
            # Reached through a child: the pool serves the whole tree.
            world.provider(f"host{i:02}-nic", parent=root, aggs=[pool_agg])
        hosts.append(root)
    for n in range(2):
        world.provider(f"pool{n}", inventory={"DISK_GB": 10000}, aggs=[pool_agg],
                       traits=["MISC_SHARES_VIA_AGGREGATE", "STORAGE_DISK_SSD"])
    return {"zone": zone.uuid, "pool_agg": pool_agg.uuid, "host": hosts[7].uuid}


def _get(api, query):
    response = api.get(f"/allocation_candidates?{query}", mv="1.39")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize("name", sorted(QUERIES))
@pytest.mark.parametrize("limit", [1, 5, 1000])
def test_limited_answer_is_the_unlimited_head(api, cloud, name, limit):
    query = QUERIES[name].format(**cloud)
    full = _get(api, query)
    part = _get(api, f"{query}&limit={limit}")
    assert_limited_is_head(full, part, limit)
    if name not in ("nothing can serve", "member_of the pool aggregate"):
        assert full["allocation_requests"], name


@pytest.mark.parametrize("name, asks_reach", [
    ("ironic", False),  # the pools hold DISK_GB only: they serve no tree here
    ("disk alone (pool-only candidates)", True),
    ("spread over a pool", True),
])
def test_batches_ask_which_trees_only_pools_able_to_serve_reach(api, cloud, monkeypatch,
                                                                 name, asks_reach):
    asked = []
    real = sql.trees_reached

    def counting(sharing, roots=None):
        asked.append(sorted(sharing))
        return real(sharing, roots)

    monkeypatch.setattr(sql, "trees_reached", counting)
    part = _get(api, f"{QUERIES[name].format(**cloud)}&limit=5")
    assert part["allocation_requests"]
    assert bool(asked) is asks_reach
