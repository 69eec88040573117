"""The package as an operator installs it: the wheel alone, in an empty
virtualenv, with nothing but what pyproject.toml declares (requirements.txt
only as version constraints, never installed itself).  Then the service as
deployment tools run it: only a placement.conf (or only OS_* variables),
`placement-manage db sync`, `placement-status upgrade check`, gunicorn on
PostgreSQL and on MariaDB, the console's log-in page, static files and
error pages, every operator command from the installed script; and, with
no configuration at all, nothing written under site-packages.

Slow (builds the wheel, installs it and its dependencies from the package
index, through pip's cache); run with `make test-install`.

PLACEMENT_INSTALL_TEST_SERVER (root@127.0.0.1:5432) and
PLACEMENT_INSTALL_TEST_MYSQL (root@127.0.0.1:3306) are the database
servers; PLACEMENT_INSTALL_TEST_DB (placement_install) the database made
afresh on each; PLACEMENT_INSTALL_TEST_PORT the port gunicorn listens on
(default: any free one).
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.cached_venv import PROJECT_DIR

pytestmark = pytest.mark.install

SERVER = os.environ.get("PLACEMENT_INSTALL_TEST_SERVER", "root@127.0.0.1:5432")
MYSQL = os.environ.get("PLACEMENT_INSTALL_TEST_MYSQL", "root@127.0.0.1:3306")
DB_NAME = os.environ.get("PLACEMENT_INSTALL_TEST_DB", "placement_install")
INSTALLER = {"pip", "setuptools", "wheel", "placement-django"}


def pip(venv, *args, **kwargs):
    return subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check",
                           *args], check=True, capture_output=True, text=True, **kwargs)


def pins():
    found = {}
    for line in (PROJECT_DIR / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            requirement = Requirement(line)
            found[canonicalize_name(requirement.name)] = next(iter(requirement.specifier)).version
    return found


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    work = tmp_path_factory.mktemp("install")
    source = work / "project"
    shutil.copytree(PROJECT_DIR, source, ignore=shutil.ignore_patterns(
        ".venv", ".git", "tests", "__pycache__", "build", "dist", "*.egg-info", "*.sqlite3"))
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--disable-pip-version-check", "-q",
                    "--no-deps", "-w", str(work / "dist"), str(source)], check=True)
    (wheel,) = (work / "dist").glob("placement_django-*.whl")
    built = time.monotonic()
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # The pins as constraints (so the versions are the tested ones); pip
    # constraints take no extras.
    constraints = work / "constraints.txt"
    constraints.write_text("".join(f"{name}=={version}\n" for name, version in pins().items()))
    pip(venv, "install", "-q", "-c", str(constraints), str(wheel))
    pip(venv, "check")
    print(f"\nwheel built in {built - started:.1f} s, installed with its dependencies in "
          f"{time.monotonic() - built:.1f} s")
    return venv


def site_packages(venv):
    (path,) = (venv / "lib").glob("python3*/site-packages")
    return path


def test_the_wheel_installs_exactly_what_requirements_txt_pins(venv):
    listed = json.loads(pip(venv, "list", "--format=json").stdout)
    installed = {canonicalize_name(d["name"]): d["version"] for d in listed}
    installed = {n: v for n, v in installed.items() if n not in INSTALLER}
    expected = pins()
    assert sorted(set(installed) - set(expected)) == [], "installed but not pinned"
    assert sorted(set(expected) - set(installed)) == [], "pinned but not needed by the wheel"
    assert installed == expected
    # The installed copy's own declared dependencies name what it imports.
    result = subprocess.run([str(venv / "bin" / "python"), "-c",
                             "import importlib.metadata as m; "
                             "print('\\n'.join(m.requires('placement-django')))"],
                            capture_output=True, text=True, check=True)
    declared = {canonicalize_name(Requirement(r).name) for r in result.stdout.splitlines()
                if "extra ==" not in r}
    assert {"prometheus-client", "pymysql", "gunicorn", "django", "whitenoise"} <= declared


def fresh_postgres():
    import psycopg

    user, _, hostport = SERVER.partition("@")
    host, _, port = hostport.partition(":")
    with psycopg.connect(host=host, port=port, user=user, dbname="postgres",
                         autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB_NAME}"')
    return f"postgresql+psycopg2://{SERVER}/{DB_NAME}"


def fresh_mariadb():
    import pymysql

    user, _, hostport = MYSQL.partition("@")
    host, _, port = hostport.partition(":")
    conn = pymysql.connect(host=host, port=int(port or 3306), user=user, autocommit=True)
    try:
        with conn.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS `{DB_NAME}`")
            cursor.execute(f"CREATE DATABASE `{DB_NAME}` CHARACTER SET utf8mb4")
    finally:
        conn.close()
    return f"mysql+pymysql://{MYSQL}/{DB_NAME}"


def free_port():
    if os.environ.get("PLACEMENT_INSTALL_TEST_PORT"):
        return int(os.environ["PLACEMENT_INSTALL_TEST_PORT"])
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run(venv, env, cwd, *args, stdin=None):
    return subprocess.run([str(venv / "bin" / args[0]), *args[1:]], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=300, input=stdin)


def fetch(url, token=None):
    """(status, headers, body bytes); 4xx/5xx answers too."""
    request = urllib.request.Request(url, headers={"x-auth-token": token} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


class Server:
    """gunicorn serving the installed copy, from a directory that is not the source."""

    def __init__(self, venv, env, cwd):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [str(venv / "bin" / "gunicorn"), "placement_site.wsgi:application",
             "-b", f"127.0.0.1:{self.port}", "-w", "1"],
            env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.log = ""

    def __enter__(self):
        for _ in range(150):
            try:
                fetch(self.base + "/")
                return self
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.2)
        self.__exit__()
        pytest.fail(f"gunicorn did not answer:\n{self.log}")

    def __exit__(self, *exc):
        self.process.terminate()
        self.log = self.process.communicate(timeout=30)[0]


def drive(server):
    """The requests every deployment must answer."""
    status, _, body = fetch(server.base + "/")
    assert status == 200
    assert json.loads(body)["versions"][0]["max_version"] == "1.39"
    status, _, body = fetch(server.base + "/resource_providers", token="admin")
    assert status == 200 and json.loads(body) == {"resource_providers": []}
    status, headers, body = fetch(server.base + "/console/login/")
    assert status == 200
    assert b'name="password"' in body and b"csrfmiddlewaretoken" in body
    # The stylesheet the log-in page links, and an admin one: both from the package.
    css = re.search(rb'href="(/console/assets/[^"]+\.css)"', body).group(1).decode()
    status, headers, body = fetch(server.base + css)
    assert status == 200 and headers["Content-Type"].startswith("text/css") and len(body) > 100
    status, headers, _ = fetch(server.base + "/static/admin/css/base.css")
    assert status == 200 and headers["Content-Type"].startswith("text/css")
    # The console's own 404 page, not Django's bare one.
    status, _, body = fetch(server.base + "/console/no-such-page/")
    assert status == 404 and b"Not found \xc2\xb7 Placement console" in body
    # The site's own 404 page: templates/, which the wheel carries.
    status, _, body = fetch(server.base + "/api/no-such-page")
    assert status == 404 and b"<title>Not found \xc2\xb7 Placement</title>" in body


def deploy_and_serve(venv, env, cwd):
    result = run(venv, env, cwd, "placement-manage", "db", "sync")
    assert result.returncode == 0, result.stderr
    result = run(venv, env, cwd, "placement-manage", "db", "version")
    assert result.returncode == 0 and result.stdout.strip() != "None", result.stderr
    database = re.search(r"placement-manage: database (.+)", result.stderr).group(1)
    result = run(venv, env, cwd, "placement-status", "upgrade", "check", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["result_name"] == "Success"
    result = run(venv, env, cwd, "placement-status", "upgrade", "check")
    assert result.returncode == 0 and "| Upgrade Check Results" in result.stdout

    with Server(venv, env, cwd) as server:
        drive(server)
    # Start-up names the database; one request-log line per API request.
    assert f"placement: database {database};" in server.log
    assert '"GET /resource_providers" status: 200' in server.log
    return database


def minimal_env(**extra):
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}
    env.update(extra)
    return env


def test_placement_conf_only_on_postgresql(venv, tmp_path):
    conf_dir = tmp_path / "etc"
    conf_dir.mkdir()
    connection = fresh_postgres()
    (conf_dir / "placement.conf").write_text(
        f"[placement_database]\nconnection = {connection}\n\n[api]\nauth_strategy = noauth2\n"
        # The console is off unless asked for; this test serves its pages.
        "\n[console]\nenabled = true\n")
    database = deploy_and_serve(venv, minimal_env(OS_PLACEMENT_CONFIG_DIR=str(conf_dir)),
                                tmp_path)
    assert database.startswith("postgresql ") and database.endswith(f"/{DB_NAME}")


def test_os_variables_only_on_mariadb(venv, tmp_path):
    connection = fresh_mariadb()
    env = minimal_env(OS_PLACEMENT_CONFIG_DIR=str(tmp_path / "none"),
                      OS_PLACEMENT_DATABASE__CONNECTION=connection,
                      OS_API__AUTH_STRATEGY="noauth2", OS_CONSOLE__ENABLED="true")
    database = deploy_and_serve(venv, env, tmp_path)
    assert database.startswith("mysql ") and database.endswith(f"/{DB_NAME}")


def snapshot(root):
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in root.rglob("*")}


def test_no_configuration_writes_nothing_under_site_packages(venv, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = minimal_env(HOME=str(home), OS_PLACEMENT_CONFIG_DIR=str(tmp_path / "none"),
                      OS_API__AUTH_STRATEGY="noauth2", OS_CONSOLE__ENABLED="true")
    before = snapshot(site_packages(venv))
    state = home / ".local" / "state" / "placement"
    database = deploy_and_serve(venv, env, tmp_path)
    assert database == f"sqlite {state / 'db.sqlite3'}"
    assert (state / "db.sqlite3").is_file()
    after = snapshot(site_packages(venv))
    assert sorted(set(after) - set(before)) == [], "written under site-packages"
    assert [p for p in before if before[p] != after.get(p)] == [], "changed under site-packages"


HELP_EACH = """
import sys
from maintenance import cli
for name in sys.argv[1:]:
    try:
        cli.manage([name, "--help"])
    except SystemExit as exc:
        print(f"{name}: exit {exc.code or 0}")
"""


def test_every_operator_command_runs_from_the_installed_script(venv, tmp_path):
    conf = tmp_path / "placement.conf"
    conf.write_text(f"[placement_database]\nconnection = {fresh_postgres()}\n")
    env = minimal_env(OS_PLACEMENT_CONFIG_DIR=str(tmp_path / "none"),
                      DJANGO_SUPERUSER_PASSWORD="install-test-pw")
    cfg = ["--config-file", str(conf)]
    assert run(venv, env, tmp_path, "placement-manage", *cfg, "db", "sync").returncode == 0
    dump = tmp_path / "dump.json"
    runs = {
        "audit": (["--json"], 0),
        "heal": (["--project-id", "p", "--user-id", "u"], 0),
        "explain": (["resources=VCPU:1"], 1),  # 1: no candidates on an empty cloud
        "headroom": (["--resources", "VCPU:1"], 0),
        "flavors": (["add", "m1.tiny", "VCPU:1"], 0),
        "history": (["--consumer", "11111111-2222-3333-4444-555555555555"], 0),
        "prune-history": ([], 0),
        "snapshot": (["--force"], 0),
        "tree": ([], 0),
        "drain": (["--provider", "nope"], 2),  # 2: no such provider on an empty cloud
        "forecast": (["--json"], 0),
        "failures": (["--prune", "--dry-run"], 0),
        "export": (["-o", str(dump)], 0),
        "load": ([str(dump)], 0),
        "import-upstream": (["--database-url", f"sqlite:///{tmp_path / 'none.db'}"], 2),
        "sync-catalog": ([], 0),
        "policy": ([], 0),
        "create-user": (["--noinput", "--username", "operator", "--email", "op@example.com"], 0),
        "set-password": (["--help"], 0),  # asks for the password on a terminal
        "unlock-login": (["--all"], 0),
    }
    result = run(venv, env, tmp_path, "placement-manage", "--help")
    listed = set(re.findall(r"^  (\S+) ", result.stdout.split("operator commands")[1], re.M))
    assert listed == set(runs)
    # Each command's --help, from the installed package in one process (each
    # script start costs about two seconds on a small machine).
    result = run(venv, env, tmp_path, "python", "-c", HELP_EACH, *runs)
    assert result.returncode == 0, result.stdout + result.stderr
    for name in runs:
        assert f"usage: placement-manage {name}" in result.stdout, name
        assert f"{name}: exit 0" in result.stdout, name
    for name, (args, code) in runs.items():
        # --config-file after the command name too.
        result = run(venv, env, tmp_path, "placement-manage", name, *args, *cfg)
        assert result.returncode == code, f"{name}: {result.stdout}{result.stderr}"
        assert "Traceback" not in result.stderr, result.stderr
        if code == 2:
            assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    result = run(venv, env, tmp_path, "placement-manage", *cfg, "flavors", "list")
    # The stored flavor, in the commands' table: a header, then its row in units.
    header, row = result.stdout.strip().splitlines()
    assert header.split() == ["flavor", "resources", "source"]
    assert row.split() == ["m1.tiny", "VCPU", "1", "stored"]
    result = run(venv, env, tmp_path, "placement-manage", *cfg, "db", "version")
    version = result.stdout.strip()
    result = run(venv, env, tmp_path, "placement-manage", *cfg, "db", "stamp", version)
    assert result.returncode == 0 and result.stdout.strip() == version, result.stderr


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
