"""providers.locking: the one module that locks providers and consumers,
checks and bumps generations, and retries a write that lost a race."""
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from allocations.models import Consumer
from placement_core import errors
from providers import locking
from providers.models import ResourceProvider
from tests import factories as f

pytestmark = pytest.mark.django_db


def test_lock_providers_takes_them_in_id_order_in_one_statement(django_assert_num_queries):
    rps = [f.ResourceProviderFactory() for _ in range(3)]
    ids = [rp.pk for rp in reversed(rps)] + [rps[0].pk, 10 ** 9]  # duplicates, a missing id
    with transaction.atomic(), django_assert_num_queries(1) as queries:
        locked = locking.lock_providers(ids)
    assert list(locked) == sorted(rp.pk for rp in rps)
    assert [p.uuid for p in locked.values()] == [rp.uuid for rp in rps]
    assert all(isinstance(p, ResourceProvider) for p in locked.values())
    sql = queries.captured_queries[0]["sql"].upper()
    assert "ORDER BY ID" in sql
    # SQLite has no row locks: the clause is left out there.
    assert ("FOR UPDATE" in sql) == connection.features.has_select_for_update


def test_a_locked_providers_timestamps_load_when_read(django_assert_num_queries):
    parent = f.ResourceProviderFactory()
    child = f.ResourceProviderFactory(parent=parent, root=parent)
    stored = ResourceProvider.objects.get(pk=child.pk)
    with transaction.atomic():
        locked = locking.lock_providers([child.pk])[child.pk]
        with django_assert_num_queries(0):
            seen = (locked.uuid, locked.name, locked.generation, locked.parent_id, locked.root_id)
        assert seen == (stored.uuid, stored.name, stored.generation, parent.pk, parent.pk)
        # Left out of the lock, read on first use, converted as the ORM does.
        assert (locked.created_at, locked.updated_at) == (stored.created_at, stored.updated_at)


def test_lock_providers_of_nothing_asks_nothing(django_assert_num_queries):
    with transaction.atomic(), django_assert_num_queries(0):
        assert locking.lock_providers([]) == {}


def test_a_lock_outside_a_transaction_is_a_bug():
    rp = f.ResourceProviderFactory()
    # pytest-django wraps each test in a transaction: leave it for the check.
    real = connection.in_atomic_block
    try:
        connection.in_atomic_block = False
        with pytest.raises(RuntimeError):
            locking.lock_providers([rp.pk])
    finally:
        connection.in_atomic_block = real


def test_lock_provider_by_uuid_matches_the_stored_spelling(django_assert_num_queries):
    rp = f.ResourceProviderFactory()
    with transaction.atomic():
        assert locking.lock_provider_by_uuid(rp.uuid).pk == rp.pk
        if connection.vendor == "mysql":
            # Upstream's tables compare case-insensitively there (the shared
            # schema takes the server's collation, as upstream's db sync does).
            assert locking.lock_provider_by_uuid(rp.uuid.upper()).pk == rp.pk
            return
        with pytest.raises(errors.NotFound) as caught:
            locking.lock_provider_by_uuid(rp.uuid.upper())
    assert caught.value.detail == f"No resource provider with uuid {rp.uuid.upper()} found"
    assert caught.value.vary is False


@pytest.mark.parametrize("bad", ["not-a-uuid", "\x00"])
def test_lock_provider_by_uuid_refuses_what_is_no_uuid_without_a_query(
        bad, django_assert_num_queries):
    with transaction.atomic(), django_assert_num_queries(0):
        with pytest.raises(errors.NotFound):
            locking.lock_provider_by_uuid(bad)


def test_bump_generations_adds_the_step_in_the_database_and_in_memory(
        django_assert_num_queries):
    a = f.ResourceProviderFactory(generation=3)
    b = f.ResourceProviderFactory(generation=7)
    before = ResourceProvider.objects.get(pk=a.pk).updated_at
    with transaction.atomic():
        locked = locking.lock_providers([a.pk, b.pk])
        with django_assert_num_queries(1):
            # The same instance twice still counts once.
            locking.bump_generations([locked[a.pk], locked[b.pk], locked[a.pk]], step=2)
    assert (locked[a.pk].generation, locked[b.pk].generation) == (5, 9)
    assert dict(ResourceProvider.objects.values_list("pk", "generation")) == {a.pk: 5, b.pk: 9}
    # A provider's bump leaves its updated_at as it was.
    assert ResourceProvider.objects.get(pk=a.pk).updated_at == before


def test_bump_generations_of_consumers_stamps_updated_at():
    consumer = f.ConsumerFactory(generation=1)
    Consumer.objects.filter(pk=consumer.pk).update(updated_at="2001-01-01T00:00:00Z")
    with transaction.atomic():
        [locked] = locking.lock_consumers(Consumer.objects.filter(pk=consumer.pk))
        locking.bump_generations([locked], touch=True)
    stored = Consumer.objects.get(pk=consumer.pk)
    assert (locked.generation, stored.generation) == (2, 2)
    assert stored.updated_at.year > 2001


def test_bump_generations_of_nothing_asks_nothing(django_assert_num_queries):
    with django_assert_num_queries(0):
        locking.bump_generations([])


def test_lock_consumers_takes_them_in_uuid_order():
    consumers = [f.ConsumerFactory() for _ in range(4)]
    with transaction.atomic(), CaptureQueriesContext(connection) as ctx:
        locked = locking.lock_consumers(Consumer.objects.filter(pk__in=[c.pk for c in consumers]))
    assert [c.uuid for c in locked] == sorted(c.uuid for c in consumers)
    assert ("FOR UPDATE" in ctx.captured_queries[0]["sql"].upper()
            ) == connection.features.has_select_for_update


@pytest.mark.parametrize("given, current, detail", [
    (None, None, None),
    (4, 4, None),
    (3, None, "consumer generation conflict - expected null but got 3"),
    (None, 4, "consumer generation conflict - expected 4 but got null"),
    (3, 4, "consumer generation conflict - expected 4 but got 3"),
])
def test_check_consumer_generation(given, current, detail):
    if detail is None:
        locking.check_consumer_generation(given, current)
        return
    with pytest.raises(errors.Conflict) as caught:
        locking.check_consumer_generation(given, current)
    assert (caught.value.detail, caught.value.code) == (detail, errors.CONCURRENT_UPDATE)


def test_check_provider_generation_words_the_conflict_as_asked():
    rp = f.ResourceProviderFactory(generation=2)
    locking.check_provider_generation(rp, 2)
    with pytest.raises(errors.Conflict) as caught:
        locking.check_provider_generation(rp, 1, "{uuid} is at {actual}, not {given}")
    assert caught.value.detail == f"{rp.uuid} is at 2, not 1"
    assert caught.value.code == errors.CONCURRENT_UPDATE


def test_run_with_retries_runs_again_after_a_lost_race(settings):
    settings.PLACEMENT_ALLOCATION_CONFLICT_RETRY_COUNT = 1
    calls = []

    def work():
        calls.append(1)
        if len(calls) == 1:
            raise locking.LostRace("simulated")
        return "done"

    assert locking.run_with_retries(work, "the test") == "done"
    assert len(calls) == 2
    with pytest.raises(errors.Conflict) as caught:
        locking.run_with_retries(lambda: (_ for _ in ()).throw(locking.LostRace("x")),
                                 "the test")
    assert caught.value.code == errors.CONCURRENT_UPDATE
    assert "the test could not complete" in caught.value.detail
