"""Failed log-ins are limited per user name and per address, on the console
and on the Django admin; the count lives in the database (all workers)."""
import json
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


def _login(client, password, username="op", url="/console/login/", addr="10.0.0.1", **extra):
    return client.post(url, {"username": username, "password": password, "next": "/console/"},
                       REMOTE_ADDR=addr, **extra)


def test_thirty_wrong_passwords_then_the_right_one_is_refused(operator):
    client = Client()
    for _ in range(30):
        assert _login(client, "wrong").status_code == 200
    response = _login(client, "right")
    assert response.status_code == 200  # the form again, not a redirect
    assert b"Too many failed log-ins" in response.content
    assert client.get("/console/").status_code == 302


def test_the_limit_counts_per_user_name_and_address(operator):
    for _ in range(5):
        _login(Client(), "wrong", addr="10.0.1.1")
    assert b"Too many failed log-ins" in _login(Client(), "right", addr="10.0.1.1").content
    # Four failures from other addresses lock nothing.
    for i in range(4):
        _login(Client(), "wrong", addr=f"10.0.2.{i}")
    assert _login(Client(), "right", addr="10.0.2.0").status_code == 302


def test_the_limit_counts_per_address_for_any_user(operator):
    for i in range(20):
        _login(Client(), "wrong", username=f"guess{i}", addr="10.9.9.9")
    response = _login(Client(), "right", addr="10.9.9.9")
    assert b"Too many failed log-ins" in response.content


def test_fewer_failures_then_success_clears_the_user_count(operator):
    client = Client()
    for _ in range(4):
        _login(client, "wrong")
    response = _login(client, "right")
    assert response.status_code == 302
    assert not LoginFailure.objects.filter(key__startswith="pair:").exists()
    assert LoginFailure.objects.get(key="addr:10.0.0.1").failures == 4


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
    response = _login(Client(), "right", url="/admin/login/", addr="10.7.7.7")
    assert response.status_code == 200
    assert b"Too many failed log-ins" in response.content


# Issue 28, items 6, 14 and 15.

def test_a_nul_in_the_user_name_is_a_form_error_not_a_500(operator):
    client = Client(raise_request_exception=False)
    response = _login(client, "x", username="a\x00b")
    assert response.status_code == 200
    assert b"Null characters are not allowed" in response.content
    # Counted for the address only: no account has such a name.
    assert list(LoginFailure.objects.values_list("key", "failures")) == [("addr:10.0.0.1", 1)]


def test_failures_count_under_the_folded_name_that_authenticates(operator):
    # Django folds the typed name (NFKC) before it looks the user up: the
    # full-width spelling is the same account, so the same count.
    get_user_model().objects.create_user("probeadmin", password="right", is_staff=True)
    for _ in range(5):
        _login(Client(), "wrong", username="probeadmin", addr="10.3.3.3")
    response = _login(Client(), "right", username="ｐｒｏｂｅａｄｍｉｎ", addr="10.3.3.3")
    assert b"Too many failed log-ins" in response.content


@override_settings(PLACEMENT_LOGIN_ADDRESS_FAILURE_LIMIT=100)
def test_the_full_width_spelling_counts_against_the_plain_name(operator):
    get_user_model().objects.create_user("probeadmin", password="right", is_staff=True)
    for spelling in ["ｐｒｏｂｅａｄｍｉｎ", "probeadmin"] * 2 + ["ＰＲＯＢＥＡＤＭＩＮ"]:
        _login(Client(), "wrong", username=spelling, addr="10.3.3.4")
    # One count for the one account, whichever spelling was typed.
    counted = LoginFailure.objects.filter(key__contains="probeadmin")
    assert [row.failures for row in counted] == [5]
    assert not LoginFailure.objects.filter(key__contains="ｐｒｏｂｅ").exists()
    assert b"Too many failed log-ins" in _login(Client(), "right", username="probeadmin",
                                                 addr="10.3.3.4").content
    assert _login(Client(), "right", username="probeadmin", addr="10.3.3.5").status_code == 302


def test_failures_from_elsewhere_do_not_lock_the_operator_out(operator):
    for i in range(5):
        for _ in range(5):
            _login(Client(), "wrong", addr=f"203.0.113.{i}")
    # Each of those addresses is locked for this name...
    assert b"Too many" in _login(Client(), "right", addr="203.0.113.0").content
    # ...but the operator at their own address logs in.
    assert _login(Client(), "right", addr="10.0.0.1").status_code == 302
    assert _login(Client(), "right", url="/admin/login/", addr="10.0.0.2").status_code == 302


@override_settings(PLACEMENT_LOGIN_ADDRESS_FAILURE_LIMIT=8)
def test_one_address_guessing_many_names_is_locked_for_every_name(operator):
    for i in range(8):
        _login(Client(), "wrong", username=f"guess{i}", addr="10.9.9.8")
    response = _login(Client(), "right", addr="10.9.9.8")
    assert b"Too many failed log-ins" in response.content
    assert _login(Client(), "right", addr="10.9.9.7").status_code == 302


def test_the_proxy_header_is_ignored_unless_configured(operator):
    for i in range(5):
        _login(Client(), "wrong", addr="10.4.4.4", HTTP_X_FORWARDED_FOR=f"198.51.100.{i}")
    response = _login(Client(), "right", addr="10.4.4.4", HTTP_X_FORWARDED_FOR="198.51.100.99")
    assert b"Too many failed log-ins" in response.content


@override_settings(PLACEMENT_LOGIN_CLIENT_ADDRESS_HEADER="X-Forwarded-For")
def test_the_configured_proxy_header_names_the_client(operator):
    # All through one proxy (10.4.4.5); the proxy appends the client last.
    for _ in range(5):
        _login(Client(), "wrong", addr="10.4.4.5",
               HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.7")
    assert b"Too many" in _login(Client(), "right", addr="10.4.4.5",
                                 HTTP_X_FORWARDED_FOR="198.51.100.7").content
    # A client that forges the first entry is still counted by the last.
    assert b"Too many" in _login(Client(), "right", addr="10.4.4.5",
                                 HTTP_X_FORWARDED_FOR="10.0.0.1, 198.51.100.7").content
    assert _login(Client(), "right", addr="10.4.4.5",
                  HTTP_X_FORWARDED_FOR="198.51.100.8").status_code == 302


def _unlock(*args):
    from io import StringIO

    from django.core.management import call_command
    out = StringIO()
    call_command("login_unlock", *args, stdout=out)
    return out.getvalue()


def test_an_operator_lifts_a_lock_with_a_command(operator):
    for _ in range(5):
        _login(Client(), "wrong", addr="10.6.6.6")
        _login(Client(), "wrong", addr="10.6.6.7")
    assert b"Too many" in _login(Client(), "right", addr="10.6.6.6").content
    assert "pair:10.6.6.6|op" in _unlock("--list")
    # The full-width spelling names the same account.
    assert "removed 1 " in _unlock("--user", "ＯＰ", "--address", "10.6.6.6")
    assert _login(Client(), "right", addr="10.6.6.6").status_code == 302
    assert b"Too many" in _login(Client(), "right", addr="10.6.6.7").content
    assert "removed 1 " in _unlock("--user", "op")
    assert _login(Client(), "right", addr="10.6.6.7").status_code == 302


@override_settings(PLACEMENT_LOGIN_ADDRESS_FAILURE_LIMIT=3)
def test_lifting_an_address_clears_its_names_too(operator):
    for i in range(3):
        _login(Client(), "wrong", username=f"guess{i}", addr="10.6.6.8")
    assert b"Too many" in _login(Client(), "right", addr="10.6.6.8").content
    assert "would remove 4 " in _unlock("--address", "10.6.6.8", "--dry-run")
    assert b"Too many" in _login(Client(), "right", addr="10.6.6.8").content
    assert json.loads(_unlock("--address", "10.6.6.8", "--json")) == {"removed": 4,
                                                                     "dry_run": False}
    assert _login(Client(), "right", addr="10.6.6.8").status_code == 302


@pytest.mark.parametrize("args", [[], ["--all", "--user", "op"], ["--user", ""],
                                  ["--address", " "]])
def test_the_unlock_command_refuses_bad_options_in_one_line(args):
    import subprocess
    import sys
    result = subprocess.run([sys.executable, "manage.py", "login_unlock", *args],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("option", ["--user", "--address"])
def test_the_unlock_command_refuses_bytes_that_are_not_utf8(option):
    # A command line reads a byte that is not UTF-8 as a lone surrogate
    # ("\udcff"), which no database text column can be asked about.
    import subprocess
    import sys
    result = subprocess.run([sys.executable.encode(), b"manage.py", b"login_unlock",
                             option.encode(), b"op\xff"], capture_output=True)
    assert result.returncode == 2, result.stderr
    stderr = result.stderr.decode()
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr
    assert f"{option} needs a value of UTF-8 text without NUL characters" in stderr
