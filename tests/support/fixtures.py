"""Fixtures every test directory may use (registered in tests/conftest.py)."""
import gc

import pytest

from tests.factories import InventoryFactory, ResourceProviderFactory, resource_class
from tests.support.world import World


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


@pytest.fixture
def world(db):
    """A tree builder (tests/support/world.py)."""
    return World()


@pytest.fixture
def collector_on():
    """The cyclic collector on for the test (pytest may run with it off), as
    it was afterwards: for tests that check who pauses it."""
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()
