"""Writers racing on one provider, in real concurrent transactions (PostgreSQL).

Each test starts the writers at the same moment (a barrier), each on its own
database connection; the row lock plus the generation check under it must
let exactly one through.
"""
import pytest

from providers.models import ProviderAggregate, ProviderTrait, ResourceProvider
from tests.factories import ResourceProviderFactory
from tests.racing import race
from tests.support.api import PlacementClient

pytestmark = [pytest.mark.needs_row_locks, pytest.mark.django_db(transaction=True)]

AGG_1 = "f918801a-5e54-4bee-9095-09a9d0c786b8"
AGG_2 = "a893eb5c-e2a0-4251-ab26-f71d3b0cfc0b"


def _put(path, body, mv="1.23"):
    response = PlacementClient(mv=mv).put(path, json=body)
    code = response.json()["errors"][0].get("code") if response.status_code >= 400 else None
    return response.status_code, code


def test_traits_writers_with_same_generation(db):
    provider = ResourceProviderFactory()
    path = f"/resource_providers/{provider.uuid}/traits"
    results = race([
        lambda: _put(path, {"traits": ["HW_CPU_X86_AVX"], "resource_provider_generation": 0}),
        lambda: _put(path, {"traits": ["HW_CPU_X86_SSE"], "resource_provider_generation": 0}),
    ])
    assert sorted(results) == [(200, None), (409, "placement.concurrent_update")]
    provider.refresh_from_db()
    assert provider.generation == 1
    assert ProviderTrait.objects.filter(resource_provider=provider).count() == 1


def test_aggregates_writers_with_same_generation(db):
    provider = ResourceProviderFactory()
    path = f"/resource_providers/{provider.uuid}/aggregates"
    results = race([
        lambda: _put(path, {"aggregates": [AGG_1], "resource_provider_generation": 0}),
        lambda: _put(path, {"aggregates": [AGG_2], "resource_provider_generation": 0}),
    ])
    assert sorted(results) == [(200, None), (409, "placement.concurrent_update")]
    provider.refresh_from_db()
    assert provider.generation == 1
    assert ProviderAggregate.objects.filter(resource_provider=provider).count() == 1


def test_two_creates_with_one_name(db):
    def create(uuid):
        response = PlacementClient(mv="1.23").post(
            "/resource_providers", json={"name": "same", "uuid": uuid})
        return response.status_code

    statuses = race([
        lambda: create("11111111-1111-4111-8111-111111111111"),
        lambda: create("22222222-2222-4222-8222-222222222222"),
    ])
    assert sorted(statuses) == [200, 409]
    assert ResourceProvider.objects.filter(name="same").count() == 1


def test_crossed_reparenting_never_makes_a_loop(db):
    a = ResourceProviderFactory()
    b = ResourceProviderFactory()
    results = race([
        lambda: _put(f"/resource_providers/{a.uuid}",
                     {"name": a.name, "parent_provider_uuid": b.uuid}, mv="1.37"),
        lambda: _put(f"/resource_providers/{b.uuid}",
                     {"name": b.name, "parent_provider_uuid": a.uuid}, mv="1.37"),
    ])
    statuses = sorted(status for status, _ in results)
    assert statuses[0] == 200 and statuses[1] in (400, 409)
    roots = ResourceProvider.objects.filter(parent__isnull=True).count()
    assert roots == 1
