"""No console surface unasked: /console/ and /admin/ are 404 on the API
unless [console] enabled (PLACEMENT_CONSOLE); an installed copy never signs
with the development key."""
import os
import stat
import subprocess
import sys
import threading

import pytest

from placement_core import state

PROBE = """
import django, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "placement_site.settings")
django.setup()
from django.test import Client
c = Client()
print(c.get("/console/").status_code, c.get("/admin/").status_code,
      c.get("/admin/login/").status_code, c.get("/").status_code)
"""


def probe(tmp_path, **env):
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("PLACEMENT_", "OS_"))}
    environ.update(OS_PLACEMENT_CONFIG_DIR=str(tmp_path), PLACEMENT_AUTH_STRATEGY="noauth2",
                   DATABASE_URL=f"sqlite:///{tmp_path / 'p.sqlite3'}", **env)
    result = subprocess.run([sys.executable, "-c", PROBE], env=environ, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_nothing_said_about_the_console_means_404(tmp_path):
    assert probe(tmp_path) == ["404", "404", "404", "200"]


@pytest.mark.parametrize("how", ["conf", "env"])
def test_one_option_turns_them_on(tmp_path, how):
    if how == "conf":
        (tmp_path / "placement.conf").write_text("[console]\nenabled = true\n")
        codes = probe(tmp_path)
    else:
        codes = probe(tmp_path, PLACEMENT_CONSOLE="1")
    assert codes[0] in ("200", "302") and codes[1] == "302" and codes[2] == "200"


def test_the_404_is_placements_not_found(client_enabled_off):
    response = client_enabled_off.get("/console/")
    assert response.status_code == 404


@pytest.fixture
def client_enabled_off(settings):
    settings.PLACEMENT_CONSOLE_ENABLED = False
    from django.test import Client

    return Client()


def test_install_key_is_made_once_and_kept(tmp_path):
    where = tmp_path / "state"
    first = state.install_secret_key(where)
    assert len(first) >= 50
    assert state.install_secret_key(where) == first
    assert stat.S_IMODE((where / "secret_key").stat().st_mode) == 0o600
    assert sorted(p.name for p in where.iterdir()) == ["secret_key"]


def test_workers_starting_together_share_one_key(tmp_path):
    keys, where = [], tmp_path / "state"
    threads = [threading.Thread(target=lambda: keys.append(state.install_secret_key(where)))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(keys)) == 1


def test_an_unwritable_state_path_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ValueError, match="secret key file .*: Not a directory"):
        state.install_secret_key(blocker / "state")


def test_a_checkout_uses_the_development_key_an_install_never(tmp_path):
    assert state.in_checkout(state.Path(__file__).resolve().parents[2])
    assert not state.in_checkout(tmp_path)
