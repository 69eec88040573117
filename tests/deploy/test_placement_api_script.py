"""Upstream's entry points: ``placement.wsgi.api:application`` and the
``placement-api`` script, a WSGI file when a server loads it and a small
server when run (``placement-api --port 8778``)."""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
SCRIPT = PROJECT / "bin" / "placement-api"


def environ(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PLACEMENT_", "OS_"))}
    env.update(PYTHONPATH=str(PROJECT), OS_PLACEMENT_CONFIG_DIR=str(tmp_path),
               DATABASE_URL=f"sqlite:///{tmp_path / 'api.sqlite3'}",
               PLACEMENT_AUTH_STRATEGY="noauth2", **extra)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return env


LOADED_AS_WSGI_FILE = """
import runpy, sys
names = runpy.run_path(sys.argv[1], run_name="_mod_wsgi_placement_api")
import placement.wsgi.api
print(callable(names["application"]), names["application"] is placement.wsgi.api.application)
"""


def test_loaded_as_a_wsgi_file_the_script_defines_application(tmp_path):
    result = subprocess.run([sys.executable, "-c", LOADED_AS_WSGI_FILE, str(SCRIPT)],
                            env=environ(tmp_path), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_run_as_a_program_it_serves(tmp_path):
    subprocess.run([sys.executable, "-c", "from maintenance.cli import main_manage; main_manage()",
                    "db", "sync"], env=environ(tmp_path), check=True, capture_output=True,
                   timeout=300)
    port = free_port()
    server = subprocess.Popen([sys.executable, str(SCRIPT), "--host", "127.0.0.1",
                               "--port", str(port)], env=environ(tmp_path),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
                    body = json.load(r)
                break
            except OSError:
                assert server.poll() is None, server.stdout.read()
                assert time.monotonic() < deadline
                time.sleep(0.3)
        assert body["versions"][0]["id"] == "v1.0"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_bad_port_is_one_line(tmp_path):
    result = subprocess.run([sys.executable, str(SCRIPT), "--port", "70000"],
                            env=environ(tmp_path), capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        "placement-api: error: --port 70000: expected 1 to 65535")
