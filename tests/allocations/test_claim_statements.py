"""A claim for a new consumer reads and writes only what it must.

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

from allocations.models import AllocationChange, Consumer
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


def test_new_consumer_claim_skips_what_it_cannot_have(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=100)
    _claim(api, uuid.uuid4(), rp, None)  # projects and users exist from here on
    consumer = str(uuid.uuid4())
    statements = _claim(api, consumer, rp, None)
    assert _touching(statements, "DELETE", "allocations") == []
    assert _touching(statements, "UPDATE", "consumers") == []
    # One read of allocations: the usage for the capacity check.
    assert len(_touching(statements, "SELECT", "allocations")) == 1
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
