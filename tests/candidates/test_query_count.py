"""The number of SQL statements per request does not grow with the number of providers."""
from django.db import connection
from django.test.utils import CaptureQueriesContext

URL = ("/allocation_candidates?resources=VCPU:1,DISK_GB:10&resources1=MEMORY_MB:64"
       "&required=HW_CPU_X86_AVX2&group_policy=none")


def _build(world, count, agg, start):
    for i in range(start, start + count):
        root = world.provider(f"cn{i}", inventory={"DISK_GB": 100}, aggs=[agg],
                              traits=["HW_CPU_X86_AVX2"])
        world.provider(f"numa{i}", parent=root, inventory={"VCPU": 4, "MEMORY_MB": 1024})
    world.provider(f"ss{start}", inventory={"DISK_GB": 1000}, aggs=[agg],
                   traits=["MISC_SHARES_VIA_AGGREGATE"])


def _count(api):
    with CaptureQueriesContext(connection) as ctx:
        resp = api.get(URL, mv="1.36")
    assert resp.status_code == 200
    return len(ctx.captured_queries), len(resp.json()["allocation_requests"])


def test_query_count_is_constant(api, world):
    agg = world.aggregate()
    _build(world, 2, agg, 0)
    small, small_results = _count(api)
    _build(world, 20, agg, 100)
    large, large_results = _count(api)
    assert large_results > small_results
    assert large == small
    assert small <= 15
