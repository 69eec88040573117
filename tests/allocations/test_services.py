"""The allocation services used directly: retries, references, the shared write step."""
import pytest
from django.db import transaction

from allocations import services
from allocations.models import Allocation, Consumer, Project
from placement_core import errors
from placement_core.uuids import normalize_uuid
from providers.locking import LostRace
from tests.support.claims import PROJECT, USER, new_uuid


def test_lost_race_is_retried(provider, monkeypatch):
    real = services._lock_consumers
    calls = {"n": 0}

    def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise LostRace("simulated")
        return real(*args, **kwargs)

    monkeypatch.setattr(services, "_lock_consumers", flaky)
    services.allocations_set(consumer_uuid=new_uuid(), allocations={provider.uuid: {"VCPU": 1}},
                             project_id=PROJECT, user_id=USER)
    assert calls["n"] == 2
    assert Allocation.objects.count() == 1


def test_retries_run_out_with_concurrent_update(provider, monkeypatch, settings):
    settings.PLACEMENT_ALLOCATION_CONFLICT_RETRY_COUNT = 2
    calls = {"n": 0}

    def always(*args, **kwargs):
        calls["n"] += 1
        raise LostRace("simulated")

    monkeypatch.setattr(services, "_lock_consumers", always)
    with pytest.raises(errors.Conflict) as info:
        services.allocations_set(consumer_uuid=new_uuid(),
                                 allocations={provider.uuid: {"VCPU": 1}},
                                 project_id=PROJECT, user_id=USER)
    assert info.value.code == errors.CONCURRENT_UPDATE
    assert calls["n"] == 3
    assert not Allocation.objects.exists()


def test_same_generation_two_writers_one_wins(provider):
    consumer = new_uuid()
    services.allocations_set(consumer_uuid=consumer, allocations={provider.uuid: {"VCPU": 1}},
                             project_id=PROJECT, user_id=USER, consumer_generation=None)
    services.allocations_set(consumer_uuid=consumer, allocations={provider.uuid: {"VCPU": 2}},
                             project_id=PROJECT, user_id=USER, consumer_generation=1)
    with pytest.raises(errors.Conflict) as info:
        services.allocations_set(consumer_uuid=consumer,
                                 allocations={provider.uuid: {"VCPU": 3}},
                                 project_id=PROJECT, user_id=USER, consumer_generation=1)
    assert info.value.code == errors.CONCURRENT_UPDATE
    assert Allocation.objects.get().used == 2


def test_write_step_inside_a_callers_transaction(provider):
    req = services.ConsumerAllocations(uuid=new_uuid(), allocations={provider.uuid: {"VCPU": 1}})
    with transaction.atomic():
        services.allocations_write(requests=[req])
    assert Consumer.objects.get(uuid=req.uuid).generation == 1


@pytest.mark.django_db(transaction=True)
def test_write_step_refuses_to_run_outside_a_transaction():
    req = services.ConsumerAllocations(uuid=new_uuid(), allocations={})
    with pytest.raises(RuntimeError):
        services.allocations_write(requests=[req])


def test_duplicate_consumer_in_one_write(provider):
    uuid = new_uuid()
    reqs = [services.ConsumerAllocations(uuid=uuid, allocations={provider.uuid: {"VCPU": 1}})] * 2
    with pytest.raises(errors.BadRequest):
        services.allocations_replace(requests=reqs)


def test_delete_missing_is_404(db):
    with pytest.raises(errors.NotFound):
        services.allocations_delete(consumer_uuid=new_uuid())


def test_failed_write_leaves_no_consumer_or_project(provider):
    with pytest.raises(errors.Conflict):
        services.allocations_set(consumer_uuid=new_uuid(),
                                 allocations={provider.uuid: {"VCPU": 100}},
                                 project_id="fresh-project", user_id="fresh-user")
    assert not Consumer.objects.exists()
    # Inside the test's transaction the reference rows roll back with the write.
    assert not Project.objects.filter(external_id="fresh-project").exists()


@pytest.mark.parametrize("value,expected", [
    ("75d0f5f775d9458cb204f90ac91604ec", "75d0f5f7-75d9-458c-b204-f90ac91604ec"),
    ("75D0F5F7-75D9-458C-B204-F90AC91604EC", "75d0f5f7-75d9-458c-b204-f90ac91604ec"),
    ("not-a-uuid", None),
    ("", None),
])
def test_normalize_consumer_uuid(value, expected):
    assert normalize_uuid(value) == expected


@pytest.mark.django_db(transaction=True)
def test_the_write_transaction_is_never_joined_by_a_callers(provider):
    # The retry loop's transaction is the outermost: run inside another, a
    # retry could not roll back to a clean start, so it refuses to nest.
    with pytest.raises(RuntimeError, match="durable"):
        with transaction.atomic():
            services.allocations_set(consumer_uuid=new_uuid(),
                                     allocations={provider.uuid: {"VCPU": 1}},
                                     project_id=PROJECT, user_id=USER)
    assert not Allocation.objects.exists()
    services.allocations_set(consumer_uuid=new_uuid(), allocations={provider.uuid: {"VCPU": 1}},
                             project_id=PROJECT, user_id=USER)
    assert Allocation.objects.count() == 1
