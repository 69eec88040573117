from tests.allocations.conftest import provider, provider2  # noqa: F401  (fixtures)
