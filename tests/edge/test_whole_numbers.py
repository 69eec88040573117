"""A whole number written with a fraction or exponent (842445.0, 8e0) is an
integer, as the OpenAPI document (JSON Schema 2020-12) says; a real
fraction is still refused where an integer is asked for."""
import pytest

from providers.models import Inventory
from tests.factories import ResourceProviderFactory

pytestmark = pytest.mark.django_db


def test_whole_floats_are_integers(api):
    rp = ResourceProviderFactory()
    body = b'{"resource_class": "VCPU", "total": 8.0, "max_unit": 4e0, "allocation_ratio": 2.0}'
    response = api.post(f"/resource_providers/{rp.uuid}/inventories", mv="1.39", data=body,
                        content_type="application/json")
    assert response.status_code == 201, response.content
    assert response.json()["total"] == 8 and isinstance(response.json()["total"], int)
    inv = Inventory.objects.get(resource_provider=rp)
    assert (inv.total, inv.max_unit, inv.allocation_ratio) == (8, 4, 2.0)
    generation = response.json()["resource_provider_generation"]
    again = api.put(f"/resource_providers/{rp.uuid}/inventories/VCPU", mv="1.39",
                    data=f'{{"resource_provider_generation": {generation}.0, "total": 16}}'
                    .encode(), content_type="application/json")
    assert again.status_code == 200, again.content
    assert again.json()["resource_provider_generation"] == generation + 1
    assert isinstance(again.json()["resource_provider_generation"], int)


def test_fractions_are_still_refused(api):
    rp = ResourceProviderFactory()
    body = b'{"resource_class": "VCPU", "total": 8.5}'
    response = api.post(f"/resource_providers/{rp.uuid}/inventories", mv="1.39", data=body,
                        content_type="application/json")
    assert response.status_code == 400
    assert not Inventory.objects.exists()
