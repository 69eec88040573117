"""`pip install .` into a virtualenv, then run the service as deployment
tools do: only a placement.conf (or only OS_PLACEMENT_DATABASE__CONNECTION),
`placement-manage db sync`, `placement-status upgrade check --json`, and
gunicorn serving placement_site.wsgi:application.

Slow (builds and installs the project); run with `make test-install`.  The
dependencies come from a virtualenv cached under ~/.cache/placement-install.
"""
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

from tests.cached_venv import PROJECT_DIR, cached_venv

pytestmark = pytest.mark.install

SERVER = os.environ.get("PLACEMENT_INSTALL_TEST_SERVER", "root@127.0.0.1:5432")


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    venv = cached_venv("placement-install", ["requirements.txt"], log=print)
    source = tmp_path_factory.mktemp("source")
    shutil.copytree(PROJECT_DIR, source / "project", ignore=shutil.ignore_patterns(
        ".venv", ".git", "tests", "__pycache__", "build", "*.egg-info", "*.sqlite3"))
    subprocess.run([str(venv / "bin" / "pip"), "install", "--disable-pip-version-check",
                    "-q", "--force-reinstall", "--no-deps", str(source / "project")],
                   check=True)
    # Dependencies as pyproject.toml declares them are all there.
    subprocess.run([str(venv / "bin" / "pip"), "check"], check=True, capture_output=True)
    return venv


def fresh_database(name):
    import psycopg

    user, _, hostport = SERVER.partition("@")
    host, _, port = hostport.partition(":")
    with psycopg.connect(host=host, port=port, user=user, dbname="postgres",
                         autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"postgresql+psycopg2://{SERVER}/{name}"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run(venv, env, cwd, *args):
    return subprocess.run([str(venv / "bin" / args[0]), *args[1:]], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def get(url, token=None):
    request = urllib.request.Request(url, headers={"x-auth-token": token} if token else {})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


def deploy_and_serve(venv, env, cwd):
    result = run(venv, env, cwd, "placement-manage", "db", "sync")
    assert result.returncode == 0, result.stderr
    result = run(venv, env, cwd, "placement-manage", "db", "version")
    assert result.returncode == 0 and result.stdout.strip() != "None", result.stderr
    result = run(venv, env, cwd, "placement-status", "upgrade", "check", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["result_name"] == "Success"
    result = run(venv, env, cwd, "placement-status", "upgrade", "check")
    assert result.returncode == 0 and "| Upgrade Check Results" in result.stdout

    port = free_port()
    server = subprocess.Popen(
        [str(venv / "bin" / "gunicorn"), "placement_site.wsgi:application",
         "-b", f"127.0.0.1:{port}", "-w", "1"],
        env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                status, body = get(base + "/")
                break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail("gunicorn did not answer")
        assert status == 200
        assert body["versions"][0]["max_version"] == "1.39"
        status, body = get(base + "/resource_providers", token="admin")
        assert status == 200 and body == {"resource_providers": []}
    finally:
        server.terminate()
        log = server.communicate(timeout=30)[0]
    # The request log (one line per API request) went to the server's log.
    assert '"GET /resource_providers" status: 200' in log


def minimal_env(**extra):
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}
    env.update(extra)
    return env


def test_placement_conf_only(venv, tmp_path):
    conf_dir = tmp_path / "etc"
    conf_dir.mkdir()
    connection = fresh_database("placement_install_conf")
    (conf_dir / "placement.conf").write_text(
        f"[placement_database]\nconnection = {connection}\n\n[api]\nauth_strategy = noauth2\n")
    deploy_and_serve(venv, minimal_env(OS_PLACEMENT_CONFIG_DIR=str(conf_dir)), tmp_path)


def test_os_variables_only(venv, tmp_path):
    connection = fresh_database("placement_install_env")
    env = minimal_env(OS_PLACEMENT_CONFIG_DIR=str(tmp_path / "none"),
                      OS_PLACEMENT_DATABASE__CONNECTION=connection,
                      OS_API__AUTH_STRATEGY="noauth2")
    deploy_and_serve(venv, env, tmp_path)


def test_config_file_option(venv, tmp_path):
    conf = tmp_path / "other.conf"
    conf.write_text("[placement_database]\nconnection = sqlite:///" + str(tmp_path / "x.db") + "\n")
    env = minimal_env(OS_PLACEMENT_CONFIG_DIR=str(tmp_path / "none"))
    result = run(venv, env, tmp_path, "placement-manage", "--config-file", str(conf), "db", "sync")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "x.db").exists()


def test_bad_setting_stops_the_tools(venv, tmp_path):
    env = minimal_env(OS_PLACEMENT_CONFIG_DIR=str(tmp_path), OS_OSLO_POLICY__ENFORCE_SCOPE="ture",
                      OS_PLACEMENT_DATABASE__CONNECTION="sqlite:///" + str(tmp_path / "y.db"))
    result = run(venv, env, tmp_path, "placement-status", "upgrade", "check")
    assert result.returncode != 0
    assert result.stderr.strip() == (
        "placement: invalid value 'ture' for OS_OSLO_POLICY__ENFORCE_SCOPE: "
        "expected true or false (also 1/0, yes/no, on/off)")
