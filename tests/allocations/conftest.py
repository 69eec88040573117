"""Shared set-up for the allocations tests: a provider with inventory."""
import uuid

import pytest

from tests.factories import InventoryFactory, ResourceProviderFactory, resource_class

PROJECT = "6f3d7c3e-0b6a-4d39-9d0e-4fc1f1a1b001"
USER = "9c9f3a55-55a4-4d4e-8bd0-1b0c3a2c2002"


def new_uuid():
    return str(uuid.uuid4())


@pytest.fixture
def provider(db):
    """A provider with 8 VCPU (max_unit 4), 2048 MEMORY_MB and 100 DISK_GB (step 10)."""
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, resource_class=resource_class("VCPU"), total=8,
                     max_unit=4)
    InventoryFactory(resource_provider=rp, resource_class=resource_class("MEMORY_MB"),
                     total=2048)
    InventoryFactory(resource_provider=rp, resource_class=resource_class("DISK_GB"), total=100,
                     min_unit=10, step_size=10)
    return rp


@pytest.fixture
def provider2(db):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, resource_class=resource_class("VCPU"), total=8)
    InventoryFactory(resource_provider=rp, resource_class=resource_class("DISK_GB"), total=500)
    return rp


def body(allocs, *, project=PROJECT, user=USER, **extra):
    """A 1.12+ PUT body: allocs is {provider_uuid: {class: amount}}."""
    data = {
        "allocations": {rp: {"resources": res} for rp, res in allocs.items()},
        "project_id": project,
        "user_id": user,
    }
    data.update(extra)
    return data


def list_body(allocs, **extra):
    """A 1.0-1.11 PUT body."""
    data = {
        "allocations": [
            {"resource_provider": {"uuid": rp}, "resources": res} for rp, res in allocs.items()
        ]
    }
    data.update(extra)
    return data


def detail(response):
    return response.json()["errors"][0]["detail"]
