"""Building the OpenAPI document leaves the API's own (Draft 4) request
schemas alone: an allocation ratio past the largest float is still refused
afterwards."""
import pytest
from django.test import Client

from providers.api import inventory_schemas
from tests.factories import ResourceProviderFactory

pytestmark = pytest.mark.django_db


def test_schemas_unchanged_and_still_enforced(api):
    before = dict(inventory_schemas.INVENTORY_CREATE["properties"]["allocation_ratio"])
    assert Client().get("/api/schema/?format=json").status_code == 200
    assert inventory_schemas.INVENTORY_CREATE["properties"]["allocation_ratio"] == before
    rp = ResourceProviderFactory()
    response = api.post(f"/resource_providers/{rp.uuid}/inventories", mv="1.39",
                        json={"resource_class": "VCPU", "total": 8, "allocation_ratio": 3.40282e39})
    assert response.status_code == 400
