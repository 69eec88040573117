"""The planning tests' tree builder also makes consumers holding allocations."""
import pytest

from tests.support.world import PlanningWorld


@pytest.fixture
def world(db):
    return PlanningWorld()
