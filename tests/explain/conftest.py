from tests.candidates.conftest import world  # noqa: F401  (the tree builder fixture)
