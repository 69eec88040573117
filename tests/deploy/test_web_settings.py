"""Production web settings: check --deploy is clean, the development key is
refused for a real deployment, static files come from WhiteNoise."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT_DIR = Path(__file__).resolve().parents[2]

PRODUCTION = {
    "PLACEMENT_SECRET_KEY": "x" * 30 + "-a-long-random-production-key-0123456789",
    "PLACEMENT_ALLOWED_HOSTS": "placement.example.com",
    "PLACEMENT_CSRF_TRUSTED_ORIGINS": "https://placement.example.com",
    "PLACEMENT_SECURE_PROXY_SSL_HEADER": "true",
    "PLACEMENT_SECURE_COOKIES": "true",
    "PLACEMENT_SSL_REDIRECT": "true",
    "PLACEMENT_HSTS_SECONDS": "31536000",
    "PLACEMENT_HSTS_INCLUDE_SUBDOMAINS": "true",
    "PLACEMENT_HSTS_PRELOAD": "true",
}


def manage(tmp_path, *args, **variables):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PLACEMENT_", "OS_"))}
    env.update(OS_PLACEMENT_CONFIG_DIR=str(tmp_path), **variables)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=PROJECT_DIR, env=env,
                          capture_output=True, text=True)


def test_check_deploy_is_clean_with_production_settings(tmp_path):
    result = manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_development_key_is_refused_for_a_real_deployment(tmp_path):
    variables = dict(PRODUCTION)
    del variables["PLACEMENT_SECRET_KEY"]
    result = manage(tmp_path, "check", **variables)
    assert result.returncode != 0
    assert result.stderr.strip().startswith("placement: PLACEMENT_SECRET_KEY is not set")
    result = manage(tmp_path, "check", PLACEMENT_ALLOW_DEVELOPMENT_SECRET_KEY="true", **variables)
    assert result.returncode == 0, result.stderr


def test_development_setup_still_starts(tmp_path):
    result = manage(tmp_path, "check", PLACEMENT_AUTH_STRATEGY="noauth2")
    assert result.returncode == 0, result.stderr


def test_clickjacking_protection_is_on_by_default():
    from django.conf import settings

    assert "django.middleware.clickjacking.XFrameOptionsMiddleware" in settings.MIDDLEWARE


@pytest.mark.django_db
def test_proxy_header_makes_the_console_login_work_over_https(client, settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.CSRF_TRUSTED_ORIGINS = ["https://placement.example.com"]
    client = type(client)(enforce_csrf_checks=True)
    page = client.get("/console/login/", HTTP_X_FORWARDED_PROTO="https")
    token = page.cookies["csrftoken"].value if "csrftoken" in page.cookies else None
    response = client.post("/console/login/", {"username": "x", "password": "y",
                                                "csrfmiddlewaretoken": token or ""},
                           HTTP_X_FORWARDED_PROTO="https",
                           HTTP_ORIGIN="https://placement.example.com",
                           HTTP_HOST="placement.example.com")
    assert response.status_code != 403


@pytest.mark.django_db
def test_static_files_are_served_with_cache_headers(client):
    response = client.get("/static/console/console.css")
    assert response.status_code == 200
    assert "max-age" in response["Cache-Control"]
    response = client.get("/console/assets/console.css")
    assert response.status_code == 200
    assert b"".join(response.streaming_content)
    response = client.get("/static/console/console.css", HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    assert client.get("/static/nope.css").status_code == 404


@pytest.mark.django_db
def test_console_pages_deny_framing(client):
    response = client.get("/console/")
    assert response.get("X-Frame-Options") == "DENY"
