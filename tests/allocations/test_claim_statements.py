"""A claim for a new consumer reads and writes only what it must.

Every name the write refers to is looked up in one statement, and the
capacity check reads inventories and usage together (allocations/write_sql.py).

The consumer is created by the claim itself: it holds no allocations and no
other writer can see it before the commit, so its old allocations are not
looked up, recorded or deleted, and it is inserted with its first
generation rather than bumped afterwards. Moving an existing consumer still
does all of that (and gets the next generation).
"""
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from allocations.models import Consumer
from operations.models import AllocationChange
from tests.factories import InventoryFactory, ResourceProviderFactory

pytestmark = pytest.mark.django_db


def _claim(api, consumer, rp, generation, amount=1):
    body = {"allocations": {rp.uuid: {"resources": {"VCPU": amount}}},
            "project_id": "p", "user_id": "u", "consumer_generation": generation}
    with CaptureQueriesContext(connection) as ctx:
        response = api.put(f"/allocations/{consumer}", mv="1.28", json=body)
    assert response.status_code == 204, response.content
    return [q["sql"] for q in ctx.captured_queries]


def _touching(statements, word, table):
    """The statements starting with ``word`` that name ``table`` (quoted
    either way: PostgreSQL and SQLite write "t", MySQL `t`)."""
    quoted = (f'"{table}"', f"`{table}`")
    return [s for s in statements
            if s.lstrip().upper().startswith(word) and any(q in s for q in quoted)]


def _work(statements):
    """The statements of the write itself, without the transaction's own
    SAVEPOINT / RELEASE (the test runs inside a transaction, so the write's
    atomic block is a savepoint)."""
    return [s for s in statements
            if not s.lstrip().upper().startswith(("SAVEPOINT", "RELEASE", "BEGIN", "COMMIT"))]


def test_new_consumer_claim_skips_what_it_cannot_have(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=100)
    _claim(api, uuid.uuid4(), rp, None)  # projects and users exist from here on
    consumer = str(uuid.uuid4())
    statements = _claim(api, consumer, rp, None)
    assert _touching(statements, "DELETE", "allocations") == []
    assert _touching(statements, "UPDATE", "consumers") == []
    # The new consumer is inserted without a savepoint of its own: only the
    # write's transaction opens one.
    assert len([s for s in statements if s.lstrip().upper().startswith("SAVEPOINT")]) == 1
    # One lookup of every name, the provider lock, the consumer insert, the
    # inventories with their usage, the allocation insert, the generation
    # bump and the history record.
    assert len(_work(statements)) == 7, _work(statements)
    assert Consumer.objects.get(uuid=consumer).generation == 1
    change = AllocationChange.objects.get(consumer_uuid=consumer)
    assert (change.amount_before, change.amount_after, change.consumer_generation) == (0, 1, 1)


def test_existing_consumer_is_moved_as_before(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=100)
    consumer = str(uuid.uuid4())
    _claim(api, consumer, rp, None)
    statements = _claim(api, consumer, rp, 1, amount=2)
    assert len(_touching(statements, "DELETE", "allocations")) == 1
    assert Consumer.objects.get(uuid=consumer).generation == 2
    got = api.get(f"/allocations/{consumer}", mv="1.28").json()
    assert got["consumer_generation"] == 2
    assert got["allocations"][rp.uuid]["resources"] == {"VCPU": 2}


def test_new_consumer_given_nothing_is_not_kept(api):
    # Inserted by the write (without an id read back) and deleted by it:
    # a consumer exists only with allocations.
    consumer = str(uuid.uuid4())
    body = {"allocations": {}, "project_id": "p", "user_id": "u", "consumer_generation": None}
    response = api.put(f"/allocations/{consumer}", mv="1.28", json=body)
    assert response.status_code == 204, response.content
    assert not Consumer.objects.filter(uuid=consumer).exists()
