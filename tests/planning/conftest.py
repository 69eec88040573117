"""Builders for the planning tests: providers (the candidate tests' World) and
consumers holding allocations on several providers at once."""
import pytest

from tests.candidates.conftest import World
from tests.factories import AllocationFactory, ConsumerFactory, resource_class


class PlanningWorld(World):
    def consumer(self, holds, uuid=None):
        """A consumer holding ``{provider: {class: amount}}``."""
        consumer = ConsumerFactory(**({"uuid": uuid} if uuid else {}))
        for rp, amounts in holds.items():
            for rc, n in amounts.items():
                AllocationFactory(consumer=consumer, resource_provider=rp,
                                  resource_class=resource_class(rc), used=n)
        return consumer


@pytest.fixture
def world(db):
    return PlanningWorld()
