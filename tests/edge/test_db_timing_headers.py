"""PLACEMENT_TIMING_HEADERS: each API answer says how long its statements
took in the database and how many there were; off, it says nothing."""
import pytest

from tests.factories import InventoryFactory, ResourceProviderFactory

pytestmark = pytest.mark.django_db


def test_headers_on(api, settings):
    settings.PLACEMENT_TIMING_HEADERS = True
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=8)
    response = api.get("/allocation_candidates?resources=VCPU:1", mv="1.39")
    assert response.status_code == 200
    assert float(response["X-Placement-DB-Time"]) >= 0
    assert int(response["X-Placement-DB-Queries"]) >= 3


def test_headers_off_by_default(api):
    response = api.get("/resource_providers", mv="1.39")
    assert "X-Placement-DB-Time" not in response
    assert "X-Placement-DB-Queries" not in response
