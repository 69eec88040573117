"""Bounds on one request: consumers per POST /allocations, and the provider
choices one candidates request may combine. Past them: a clear 400, nothing
written; up to them: the answer as before."""
import json
import uuid

import pytest
from django.test import override_settings

from allocations.models import Allocation, Consumer
from tests.factories import InventoryFactory, ResourceProviderFactory
from tests.support.world import World

pytestmark = pytest.mark.django_db


def _post_body(rp, count):
    return {
        str(uuid.UUID(int=i + 1)): {
            "allocations": {rp.uuid: {"resources": {"VCPU": 1}}},
            "project_id": "p", "user_id": "u", "consumer_generation": None,
        }
        for i in range(count)
    }


@override_settings(PLACEMENT_MAX_CONSUMERS_PER_REQUEST=5)
def test_too_many_consumers_in_one_post(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=100)
    response = api.post("/allocations", mv="1.28", json=_post_body(rp, 6))
    assert response.status_code == 400
    assert "at most 5 consumers; this one names 6" in response.json()["errors"][0]["detail"]
    assert not Consumer.objects.exists()
    assert api.post("/allocations", mv="1.28", json=_post_body(rp, 5)).status_code == 204
    assert Allocation.objects.count() == 5


def test_default_bound_refuses_100000_consumers_quickly(api):
    rp = ResourceProviderFactory()
    body = json.dumps(_post_body(rp, 100_000)).encode()
    response = api.post("/allocations", mv="1.28", data=body, content_type="application/json")
    assert response.status_code == 400
    assert "at most 1000 consumers" in response.json()["errors"][0]["detail"]


@pytest.fixture
def wide_tree(db):
    """A compute node with 8 NUMA cells of 8 VCPU each."""
    w = World()
    root = w.provider("cn")
    for i in range(8):
        w.provider(f"numa{i}", parent=root, inventory={"VCPU": 8})
    return root


def _groups(n):
    return "&".join(f"resources{i}=VCPU:1" for i in range(1, n + 1)) + "&group_policy=none"


def test_combinatorial_candidates_request_is_refused(api, wide_tree):
    response = api.get(f"/allocation_candidates?{_groups(6)}", mv="1.39")
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert error["code"] == "placement.query.too_much_work"
    assert "more than 100000 provider choices" in error["detail"]


@override_settings(PLACEMENT_CANDIDATE_WORK_LIMIT=-1)
def test_the_bound_can_be_lifted(api, wide_tree):
    response = api.get(f"/allocation_candidates?{_groups(3)}", mv="1.39")
    assert response.status_code == 200
    assert len(response.json()["allocation_requests"]) == 8 ** 3


@override_settings(PLACEMENT_CANDIDATE_WORK_LIMIT=500)
def test_work_within_the_bound_answers(api, wide_tree):
    response = api.get(f"/allocation_candidates?{_groups(3)}", mv="1.39")
    assert response.status_code == 400  # 8 + 64 + 512 placements > 500
    small = api.get(f"/allocation_candidates?{_groups(2)}", mv="1.39")
    assert small.status_code == 200
    assert len(small.json()["allocation_requests"]) == 64


@override_settings(PLACEMENT_CANDIDATE_WORK_LIMIT=10)
def test_the_unsuffixed_group_picks_count_too(api, db):
    w = World()
    root = w.provider("cn")
    for i in range(4):
        w.provider(f"n{i}", parent=root, inventory={"VCPU": 8, "MEMORY_MB": 1024})
    response = api.get("/allocation_candidates?resources=VCPU:1,MEMORY_MB:1", mv="1.39")
    assert response.status_code == 400  # 4 x 4 picks
    assert response.json()["errors"][0]["code"] == "placement.query.too_much_work"


@pytest.fixture
def gpu_hosts(db):
    """Three hosts of 16 one-VGPU devices each: 8 groups over 16 devices
    are half a billion ordered placements a host."""
    w = World()
    for h in range(3):
        host = w.provider(f"gpu-host-{h}", inventory={"VCPU": 64})
        for d in range(16):
            w.provider(f"gpu-host-{h}-dev-{d}", parent=host, inventory={"VGPU": 1})


def test_a_limit_answers_what_the_whole_answer_cannot(api, gpu_hosts):
    # Nova always sends a limit (max_placement_results): the work bound is
    # for the answer asked for, so a limited request with answers gets them.
    groups = "&".join(f"resources{i}=VGPU:1" for i in range(1, 9)) + "&group_policy=isolate"
    limited = api.get(f"/allocation_candidates?resources=VCPU:4&{groups}&limit=1000", mv="1.39")
    assert limited.status_code == 200
    requests = limited.json()["allocation_requests"]
    assert len(requests) == 1000
    for request in requests:
        devices = [rp for rp, alloc in request["allocations"].items() if "VGPU" in alloc["resources"]]
        assert len(devices) == 8  # isolate: eight distinct devices
    whole = api.get(f"/allocation_candidates?resources=VCPU:4&{groups}", mv="1.39")
    assert whole.status_code == 400
    assert whole.json()["errors"][0]["code"] == "placement.query.too_much_work"
