"""A refused allocation write leaves no trace: no consumer, and none of the
project and user rows it would have created."""
import pytest

from allocations.models import Consumer, Project, User
from tests.factories import InventoryFactory, ResourceProviderFactory

pytestmark = pytest.mark.django_db(transaction=True)

CONSUMER = "0d0b4a64-5d6c-4a3d-9a6d-7f4d2e1c9b10"
OTHER = "6b1c2a3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"


@pytest.fixture
def small():
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=2)
    return rp


def _nothing_new():
    return (not Consumer.objects.exists() and not Project.objects.exists()
            and not User.objects.exists())


def test_put_over_capacity(api, small):
    response = api.put(f"/allocations/{CONSUMER}", mv="1.28", json={
        "allocations": {small.uuid: {"resources": {"VCPU": 5}}},
        "project_id": "new-project", "user_id": "new-user", "consumer_generation": None,
    })
    assert response.status_code == 409
    assert _nothing_new()


def test_post_over_capacity(api, small):
    response = api.post("/allocations", mv="1.28", json={
        CONSUMER: {"allocations": {small.uuid: {"resources": {"VCPU": 1}}},
                   "project_id": "p1", "user_id": "u1", "consumer_generation": None},
        OTHER: {"allocations": {small.uuid: {"resources": {"VCPU": 5}}},
                "project_id": "p2", "user_id": "u2", "consumer_generation": None},
    })
    assert response.status_code == 409
    assert _nothing_new()


def test_put_with_unknown_provider(api):
    response = api.put(f"/allocations/{CONSUMER}", mv="1.28", json={
        "allocations": {OTHER: {"resources": {"VCPU": 1}}},
        "project_id": "new-project", "user_id": "new-user", "consumer_generation": None,
    })
    assert response.status_code == 400
    assert _nothing_new()
