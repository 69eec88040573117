"""What the tests share: clients, builders and fixtures.

Test modules and conftests import from here, never from another package's
conftest or from a test module (tests/test_private_names.py holds them to it).
The fixtures in :mod:`tests.support.fixtures` are registered for every test by
``pytest_plugins`` in tests/conftest.py.
"""
