"""A candidates search leaves nothing for the cyclic garbage collector.

Its data (providers, choices, the search context) must be freed by reference
counting as soon as the answer is written: a reference cycle would keep a
large answer's objects alive until a collection, and that collection walks
them all (about 70 ms after every nested bench request). Only the engine's
own objects are looked for: Django and DRF keep small cycles of their own.
"""
import gc

import pytest

from candidates import combiner, context
from placement_core.querystring import CandidateRequest

URL = "/allocation_candidates"
ENGINE_TYPES = (context.TreeProvider, context.SearchContext, context.ResolvedGroup,
                combiner.Choice, combiner.Problem, CandidateRequest)


@pytest.fixture
def two_numa_trees(world):
    for n in range(2):
        cn = world.provider(f"cn{n}", inventory={"DISK_GB": 100})
        for cell in range(2):
            numa = world.provider(f"cn{n}-numa{cell}", parent=cn, inventory={"VCPU": 4})
            world.provider(f"cn{n}-fpga{cell}", parent=numa, inventory={"FPGA": 1})


def _engine_garbage(run):
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        gc.collect()
        return [o for o in gc.garbage if isinstance(o, ENGINE_TYPES)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()


def test_granular_same_subtree_search_leaves_no_cycles(api, two_numa_trees):
    query = (URL + "?resources=DISK_GB:10&resources_C=VCPU:1&resources_F=FPGA:1"
             "&group_policy=none&same_subtree=_C,_F")
    answers = []

    def run():
        answers.append(api.get(query, mv="1.39"))

    assert _engine_garbage(run) == []
    # The search did walk several groups per tree (the path that had the cycle).
    assert len(answers[0].json()["allocation_requests"]) == 4


def test_capped_walk_leaves_no_cycles(api, two_numa_trees):
    query = URL + "?resources_A=VCPU:1&resources_B=VCPU:1&group_policy=none&limit=1"
    answers = []

    def run():
        answers.append(api.get(query, mv="1.39"))

    assert _engine_garbage(run) == []
    assert len(answers[0].json()["allocation_requests"]) == 1
