import json

import pytest
from django.test import Client


@pytest.fixture(scope="module")
def document(django_db_blocker):
    """The OpenAPI document as served (JSON), read once per test module."""
    with django_db_blocker.unblock():
        return json.loads(Client().get("/api/schema/?format=json").content)
