"""The benchmark's two candidates requests run a fixed, small number of statements.

Each round trip to the database is a good share of these requests' time
(docs/benchmarks.md), so the count is held here exactly: a change that
adds a statement to either fails until it says why. Shapes as
``benchmarks/bench.py`` loads them, a few trees of each.
"""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

URL = "/allocation_candidates"


def _statements(api, query) -> list:
    with CaptureQueriesContext(connection) as ctx:
        response = api.get(URL + query, mv="1.39")
    assert response.status_code == 200, response.content
    assert response.json()["allocation_requests"]
    return [q["sql"] for q in ctx.captured_queries]


@pytest.fixture
def flat(world):
    """Compute nodes in one aggregate, every other one with AVX2 (load-flat)."""
    agg = world.aggregate()
    for i in range(6):
        world.provider(f"perf-{i}", inventory={"VCPU": 32, "MEMORY_MB": 131072, "DISK_GB": 2048},
                       aggs=[agg], traits=["HW_CPU_X86_AVX2"] if i % 2 == 0 else [])
    return agg


@pytest.fixture
def nested(world):
    """Trees of a compute node, two NUMA nodes and two devices under each
    (load-nested), one device of a kind the request does not ask for."""
    for i in range(3):
        cn = world.provider(f"cn-{i}", inventory={"DISK_GB": 20480},
                            traits=["COMPUTE_VOLUME_MULTI_ATTACH"])
        for n in (0, 1):
            numa = world.provider(f"numa{n}-{i}", parent=cn,
                                  inventory={"VCPU": 4, "MEMORY_MB": 2048},
                                  traits=["HW_NUMA_ROOT"] + (["CUSTOM_FOO"] if n else []))
            for d in (0, 1):
                kind = "VGPU" if n == 0 and d == 1 else "FPGA"
                world.provider(f"dev{d}-{n}-{i}", parent=numa, inventory={kind: 8})


def test_flat_request(api, flat):
    statements = _statements(
        api, "?resources=VCPU:1,DISK_GB:10,MEMORY_MB:256"
        f"&member_of={flat.uuid}&required=HW_CPU_X86_AVX2")
    # The names (with the sharing providers), the providers of the trees
    # holding the trait, their inventories, their traits with the traits'
    # names, their aggregates.
    assert len(statements) == 5, statements


def test_nested_request(api, nested):
    statements = _statements(
        api, "?resources=DISK_GB:10&required=COMPUTE_VOLUME_MULTI_ATTACH"
        "&resources_COMPUTE=VCPU:1,MEMORY_MB:256&required_COMPUTE=CUSTOM_FOO"
        "&resources_FPGA=FPGA:1&group_policy=none&same_subtree=_COMPUTE,_FPGA")
    # As the flat request, but no aggregates (no member_of) and the name
    # of the class no group asks for (VGPU), for the summaries.
    assert len(statements) == 5, statements
