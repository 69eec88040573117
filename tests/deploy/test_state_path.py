"""[placement] state_path: where a copy writes; the default database there;
which database is in use said at start-up; the console's error pages."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from placement_core import state
from placement_site import config

PROJECT_DIR = Path(__file__).resolve().parents[2]


def test_read_from_placement_conf_os_variable_and_placement_variable(tmp_path):
    (tmp_path / "placement.conf").write_text(
        "[placement]\nstate_path = /var/lib/placement\nstatic_root = /srv/static\n")
    environ = {"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)}
    values, _ = config.load(environ)
    assert (values["PLACEMENT_STATE_PATH"], values["PLACEMENT_STATIC_ROOT"]) == (
        "/var/lib/placement", "/srv/static")
    environ["OS_PLACEMENT__STATE_PATH"] = "/srv/a"
    assert config.load(environ)[0]["PLACEMENT_STATE_PATH"] == "/srv/a"
    environ["PLACEMENT_STATE_PATH"] = "/srv/b"
    assert config.load(environ)[0]["PLACEMENT_STATE_PATH"] == "/srv/b"


def test_default_is_the_checkout_when_running_from_one(tmp_path):
    (tmp_path / "manage.py").write_text("")
    assert state.state_path(None, tmp_path, {"HOME": "/home/x"}) == tmp_path


def test_default_outside_a_checkout_is_the_users_state_directory(tmp_path):
    package = tmp_path / "site-packages"
    package.mkdir()
    assert state.state_path(None, package, {"HOME": "/home/x"}) == Path(
        "/home/x/.local/state/placement")
    assert state.state_path(None, package, {"HOME": "/home/x", "XDG_STATE_HOME": "/st"}) == Path(
        "/st/placement")
    assert state.state_path("rel", package, {}) == Path(os.path.abspath("rel"))


def test_describe_database_leaves_the_password_out():
    from placement_core.database import database_settings

    db = database_settings("postgresql+psycopg2://nova:s3cret@db.example:5433/placement")
    assert state.describe_database(db) == "postgresql nova@db.example:5433/placement"
    assert state.describe_database(database_settings("sqlite:////var/lib/p/db.sqlite3")) == (
        "sqlite /var/lib/p/db.sqlite3")


def settings_of(env, cwd):
    """Some settings as a fresh process computes them."""
    script = ("import os, django; os.environ['DJANGO_SETTINGS_MODULE'] = "
              "'placement_site.settings'; django.setup(); from django.conf import settings; "
              "print(settings.DATABASES['default']['NAME']); print(settings.STATIC_ROOT); "
              "print(settings.PLACEMENT_STATE_PATH)")
    base = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL",)}
    return subprocess.run([sys.executable, "-c", script], env=dict(base, **env), cwd=cwd,
                          capture_output=True, text=True, timeout=60)


def test_state_path_holds_the_default_database_and_static_root(tmp_path):
    where = tmp_path / "state"
    result = settings_of({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path),
                          "OS_PLACEMENT__STATE_PATH": str(where)}, PROJECT_DIR)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(where / "db.sqlite3"), str(where / "static"), str(where)]
    assert where.is_dir()


def test_an_uncreatable_state_path_stops_start_up_with_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = settings_of({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path),
                          "PLACEMENT_STATE_PATH": str(blocker / "sub")}, PROJECT_DIR)
    assert result.returncode != 0
    assert result.stderr.strip() == (
        f"placement: cannot create the state directory ([placement] state_path) "
        f"{blocker / 'sub'}: Not a directory")


@pytest.mark.django_db
def test_console_404_is_the_consoles_page(client):
    response = client.get("/console/no-such-page/")
    assert response.status_code == 404
    body = response.content.decode()
    assert "Not found · Placement console" in body
    assert 'href="/console/assets/console.css"' in body
    assert "/console/no-such-page/" in body


def test_the_500_page_is_the_sites_own(client, settings):
    from django.template.loader import get_template

    template = get_template("500.html")
    assert Path(template.origin.name).resolve().is_relative_to(PROJECT_DIR / "templates")
    assert "Something went wrong" in template.render({})
