"""The 409 texts for inventory in use read exactly as upstream's.

Nova's report client (before microversion 1.23) tells "inventory in use"
apart from other conflicts by matching
``Inventory for (.+) on resource provider (.+) in use``; the classes are
named in resource class id order, quoted together and comma-joined.
"""
import re

import pytest

from providers.models import Inventory
from tests.factories import (
    AllocationFactory,
    ConsumerFactory,
    InventoryFactory,
    ResourceProviderFactory,
    resource_class,
)

pytestmark = pytest.mark.django_db

NOVA_RE = re.compile("Inventory for (.+) on resource provider (.+) in use")


def _busy_provider():
    rp = ResourceProviderFactory()
    consumer = ConsumerFactory()
    for name in ("DISK_GB", "VCPU", "MEMORY_MB"):
        InventoryFactory(resource_provider=rp, resource_class=resource_class(name), total=100)
    # Allocations against VCPU and DISK_GB only (MEMORY_MB stays free).
    for name in ("DISK_GB", "VCPU"):
        AllocationFactory(resource_provider=rp, consumer=consumer,
                          resource_class=resource_class(name), used=1)
    return rp


def _error(response):
    return response.json()["errors"][0]


def _ordered_busy():
    # VCPU (id 0) before DISK_GB (id 2): the order of the standard classes' ids.
    ids = sorted((resource_class(n).pk, n) for n in ("DISK_GB", "VCPU"))
    return ", ".join(name for _, name in ids)


@pytest.mark.parametrize("mv", ["1.5", "1.22", "1.39"])
def test_delete_all_inventories_names_the_classes_in_use(api, mv):
    rp = _busy_provider()
    response = api.delete(f"/resource_providers/{rp.uuid}/inventories", mv=mv)
    assert response.status_code == 409
    error = _error(response)
    assert (
        f"Inventory for '{_ordered_busy()}' on resource provider '{rp.uuid}' in use."
        in error["detail"]
    )
    assert _ordered_busy() == "VCPU, DISK_GB"
    if tuple(map(int, mv.split("."))) >= (1, 23):
        assert error["code"] == "placement.inventory.inuse"
    assert NOVA_RE.search(error["detail"])
    assert Inventory.objects.filter(resource_provider=rp).count() == 3


def test_replacing_inventories_without_busy_classes_names_them_in_id_order(api):
    rp = _busy_provider()
    response = api.put(
        f"/resource_providers/{rp.uuid}/inventories",
        json={"resource_provider_generation": rp.generation,
              "inventories": {"MEMORY_MB": {"total": 100}}},
    )
    assert response.status_code == 409
    detail = _error(response)["detail"]
    assert f"Inventory for 'VCPU, DISK_GB' on resource provider '{rp.uuid}' in use." in detail
    assert NOVA_RE.search(detail)
