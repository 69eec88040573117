"""Failed log-ins are limited per user name and per address, on the console
and on the Django admin; the count lives in the database (all workers)."""
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from django.utils import timezone

from console.models import LoginFailure

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator():
    return get_user_model().objects.create_user("op", password="right", is_staff=True,
                                                is_superuser=True)


def _login(client, password, username="op", url="/console/login/", addr="10.0.0.1"):
    return client.post(url, {"username": username, "password": password, "next": "/console/"},
                       REMOTE_ADDR=addr)


def test_thirty_wrong_passwords_then_the_right_one_is_refused(operator):
    client = Client()
    for _ in range(30):
        assert _login(client, "wrong").status_code == 200
    response = _login(client, "right")
    assert response.status_code == 200  # the form again, not a redirect
    assert b"Too many failed log-ins" in response.content
    assert client.get("/console/").status_code == 302


def test_the_limit_counts_per_user_from_any_address(operator):
    for i in range(5):
        _login(Client(), "wrong", addr=f"10.0.1.{i}")
    response = _login(Client(), "right", addr="10.0.2.1")
    assert b"Too many failed log-ins" in response.content


def test_the_limit_counts_per_address_for_any_user(operator):
    for i in range(5):
        _login(Client(), "wrong", username=f"guess{i}", addr="10.9.9.9")
    response = _login(Client(), "right", addr="10.9.9.9")
    assert b"Too many failed log-ins" in response.content


def test_fewer_failures_then_success_clears_the_user_count(operator):
    client = Client()
    for _ in range(4):
        _login(client, "wrong")
    response = _login(client, "right")
    assert response.status_code == 302
    assert not LoginFailure.objects.filter(key="user:op").exists()


@override_settings(PLACEMENT_LOGIN_LOCKOUT_SECONDS=60)
def test_the_lockout_ends_with_its_window(operator):
    for _ in range(5):
        _login(Client(), "wrong")
    assert b"Too many" in _login(Client(), "right").content
    LoginFailure.objects.update(since=timezone.now() - timedelta(seconds=61))
    assert _login(Client(), "right").status_code == 302


def test_the_admin_login_is_throttled_too(operator):
    for _ in range(5):
        _login(Client(), "wrong", url="/admin/login/", addr="10.7.7.7")
    response = _login(Client(), "right", url="/admin/login/", addr="10.7.7.8")
    assert response.status_code == 200
    assert b"Too many failed log-ins" in response.content
