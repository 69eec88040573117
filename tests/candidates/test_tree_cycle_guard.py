"""A parent cycle stored behind the API's back (an old load, a hand edit)
must not hang or crash the candidate engine: a clean 409 naming the
provider and the audit that reports it (issue 28, item 7). load_json now
refuses such a file; this is the guard for data already stored."""
import signal

import pytest
from django.db import connection

from providers.models import ResourceProvider

QUERY = "resources1=VCPU:1&resources2=DISK_GB:1&same_subtree=1,2&group_policy=none"


@pytest.fixture
def cycle(world):
    a = world.provider("a", inventory={"VCPU": 8, "DISK_GB": 8})
    b = world.provider("b", parent=a, inventory={"VCPU": 8, "DISK_GB": 8})
    world.provider("c", inventory={"VCPU": 8, "DISK_GB": 8})
    ResourceProvider.objects.filter(pk=a.pk).update(parent=b)
    return a, b


@pytest.fixture
def alarm():
    """Fail instead of hanging: the walk used to loop for ever."""
    def hung(*_):
        raise TimeoutError("the request did not finish in 20 s")
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("path", ["/allocation_candidates", "/explain"])
def test_a_parent_cycle_is_a_409_not_a_hang(api, cycle, alarm, path):
    a, b = cycle
    response = api.get(f"{path}?{QUERY}", mv="1.39")
    assert response.status_code == 409
    detail = response.json()["errors"][0]["detail"]
    assert "parent cycle" in detail and "audit_allocations" in detail
    assert a.uuid in detail or b.uuid in detail


def test_other_requests_still_answer(api, cycle, alarm):
    response = api.get("/allocation_candidates?resources=VCPU:1", mv="1.39")
    assert response.status_code == 200


@pytest.mark.parametrize("body", [{"name": "renamed"}, {"name": "a", "parent_provider_uuid": None}])
def test_updating_a_provider_on_a_cycle_finishes(api, cycle, alarm, body):
    a, _ = cycle
    response = api.put(f"/resource_providers/{a.uuid}", mv="1.39", json=body)
    assert response.status_code in (200, 400, 409)
