"""POST /allocations with many consumers: the queries do not grow with them."""
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import InventoryFactory, ResourceProviderFactory

pytestmark = pytest.mark.django_db


def _body(rp, count, offset=0):
    return {
        str(uuid.UUID(int=offset + i + 1)): {
            "allocations": {rp.uuid: {"resources": {"VCPU": 1}}},
            "project_id": "p", "user_id": "u", "consumer_generation": None,
        }
        for i in range(count)
    }


def _queries(api, rp, count, offset):
    with CaptureQueriesContext(connection) as ctx:
        response = api.post("/allocations", mv="1.28", json=_body(rp, count, offset))
    assert response.status_code == 204, response.content
    return len(ctx.captured_queries)


def test_query_count_does_not_grow_with_consumers(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=10_000)
    few = _queries(api, rp, 5, 0)
    many = _queries(api, rp, 200, 1000)
    assert many <= few + 5, (few, many)
