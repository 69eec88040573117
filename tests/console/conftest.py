"""What the console tests share: a logged-in staff client."""
import pytest
from django.contrib.auth import get_user_model
from django.test import Client


@pytest.fixture
def staff(db):
    client = Client()
    client.force_login(get_user_model().objects.create_user("op", password="pw", is_staff=True))
    return client
