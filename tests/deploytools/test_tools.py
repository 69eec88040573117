"""The installed wheel started as each deployment tool starts Placement,
with that tool's layout (tests/deploytools/layouts.py): real uWSGI for
kolla-ansible, openstack-helm, OpenStack-Ansible and devstack, real Apache
with mod_wsgi for the distro/charm layout; on PostgreSQL and MariaDB.

Each case: placement-manage db sync, db online_data_migrations,
placement-status upgrade check (the tool's commands), then the server: GET
/, a provider list, a claim, the operator's policy override (403), the
console and admin absent (404), the request's log line with its request
id, and a per-install secret key kept in the state directory.

Run with `make test-deploy-tools` (PLACEMENT_DEPLOYTOOLS_TEST=1).
PLACEMENT_DEPLOYTOOLS_POSTGRES / _MYSQL name the servers (root@127.0.0.1:5432,
root@127.0.0.1:3306), PLACEMENT_DEPLOYTOOLS_DB the database name prefix
(deploytools), PLACEMENT_DEPLOYTOOLS_PORT the first of the ports used
(19850; two per case).
"""
import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
import uuid

import pytest

from tests.deploytools import environment, layouts

pytestmark = pytest.mark.deploytools

POSTGRES = os.environ.get("PLACEMENT_DEPLOYTOOLS_POSTGRES", "root@127.0.0.1:5432")
MYSQL = os.environ.get("PLACEMENT_DEPLOYTOOLS_MYSQL", "root@127.0.0.1:3306")
DB_PREFIX = os.environ.get("PLACEMENT_DEPLOYTOOLS_DB", "deploytools")
PORT = int(os.environ.get("PLACEMENT_DEPLOYTOOLS_PORT", "19850"))
DATABASES = ["postgresql", "mariadb"]


@pytest.fixture(scope="session")
def venv():
    work = environment.work_directory()
    try:
        return environment.installed_venv(environment.build_wheel(work))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def fresh_database(kind, name):
    user, _, hostport = (POSTGRES if kind == "postgresql" else MYSQL).partition("@")
    host, _, port = hostport.partition(":")
    if kind == "postgresql":
        import psycopg

        with psycopg.connect(host=host, port=port, user=user, dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg2://{user}@{host}:{port}/{name}"
    import pymysql

    conn = pymysql.connect(host=host, port=int(port), user=user)
    try:
        with conn.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS `{name}`")
            cursor.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")
    finally:
        conn.close()
    return f"mysql+pymysql://{user}@{host}:{port}/{name}"


def command(layout, venv, *argv):
    return subprocess.run([*layout.run_as, str(venv / "bin" / argv[0]), *argv[1:]], env=layout.env,
                          cwd=layout.root, capture_output=True, text=True, timeout=300)


def http(port, method, path, body=None, mv=None):
    headers = {"X-Auth-Token": "admin", "Accept": "application/json"}
    if mv:
        headers["OpenStack-API-Version"] = f"placement {mv}"
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data,
                                     headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read().decode()
            return response.status, dict(response.headers), text
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


def tail(path, lines=30):
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no output)"


class Server:
    def __init__(self, layout, port):
        self.layout, self.port = layout, port
        self.out = open(layout.root / "server.out", "ab")
        self.process = subprocess.Popen(layout.argv, env=layout.env, cwd=layout.root,
                                        stdout=self.out, stderr=subprocess.STDOUT,
                                        start_new_session=True)

    def wait_ready(self, seconds=120):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"{self.layout.tool}: the server exited {self.process.returncode}:\n"
                            f"{tail(self.layout.root / 'server.out')}\n{tail(self.layout.output)}")
            try:
                status, _, _ = http(self.port, "GET", "/")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.5)
        pytest.fail(f"{self.layout.tool}: no answer on GET / in {seconds} s:\n"
                    f"{tail(self.layout.root / 'server.out')}\n{tail(self.layout.output)}")

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, getattr(signal, self.layout.stop_signal))
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.out.close()


OSLO_CONTEXT_LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \d+ INFO placement\S* "
    r"\[\S+ req-[0-9a-f-]{36} [^\]]*\] .*\"GET /resource_providers")


CASES = [(tool, kind) for kind in DATABASES for tool in layouts.TOOLS]


@pytest.mark.parametrize("tool,kind", CASES, ids=[f"{t}-{k}" for t, k in CASES])
def test_the_tool_runs_it_unchanged(venv, tool, kind):
    index = CASES.index((tool, kind))
    port = PORT + 2 * index
    url = fresh_database(kind, f"{DB_PREFIX}_{tool}")
    root = environment.work_directory()
    layout = layouts.write(tool, root, venv, url, port)
    try:
        run_case(layout, venv, port, tool)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run_case(layout, venv, port, tool):
    # The tool's maintenance commands, with its exit-code contract.
    sync = command(layout, venv, "placement-manage", "db", "sync")
    assert sync.returncode == 0, sync.stderr
    assert "Traceback" not in sync.stderr
    if tool == "devstack":
        assert sync.stderr.count("not taken by the") == 1, sync.stderr
        assert "plugin" in sync.stderr
    online = command(layout, venv, "placement-manage", "db", "online_data_migrations")
    assert online.returncode == 0, online.stderr
    assert "| Migration | Total Needed | Completed |" in online.stdout
    if tool == "kolla":
        # kolla's validate-config, and its image build's generators.
        validate = command(layout, venv, "oslo-config-validator", "--namespace", "placement",
                           "--namespace", "oslo.log", "--input-file",
                           str(layout.config_dir / "placement.conf"))
        assert validate.returncode == 0, validate.stdout + validate.stderr
        for generator in ("oslo-config-generator", "oslopolicy-sample-generator"):
            made = command(layout, venv, generator, "--namespace", "placement")
            assert made.returncode == 0 and "placement" in made.stdout, made.stderr
    check = command(layout, venv, "placement-status", "upgrade", "check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "| Upgrade Check Results" in check.stdout

    server = Server(layout, port)
    try:
        server.wait_ready()
        serve_checks(layout, port)
    finally:
        server.stop()
    log = layout.request_log.read_text(errors="replace")
    assert "--- Logging error ---" not in log
    lines = [line for line in log.splitlines() if '"GET /resource_providers' in line]
    assert lines, f"{tool}: no request log line in {layout.request_log}:\n{tail(layout.request_log)}"
    # oslo.log's context line, as every OpenStack service writes it (what
    # kolla's fluentd parser and helm's logging.conf expect).
    assert OSLO_CONTEXT_LINE.match(lines[0]), lines[0]
    # An installed copy never signs with the development key.
    key = layout.state_dir / "secret_key"
    assert key.is_file() and len(key.read_text().strip()) >= 50


def serve_checks(layout, port):
    status, _, body = http(port, "GET", "/")
    assert status == 200 and json.loads(body)["versions"][0]["max_version"] == "1.39"
    rp = str(uuid.uuid4())
    status, _, body = http(port, "POST", "/resource_providers", {"name": f"cn-{rp[:8]}",
                                                                 "uuid": rp}, mv="1.20")
    assert status == 200, body
    status, _, body = http(port, "PUT", f"/resource_providers/{rp}/inventories", {
        "resource_provider_generation": 0,
        "inventories": {"VCPU": {"total": 8}, "MEMORY_MB": {"total": 4096}}}, mv="1.20")
    assert status == 200, body
    status, _, body = http(port, "GET", "/resource_providers", mv="1.14")
    assert status == 200 and [p["uuid"] for p in json.loads(body)["resource_providers"]] == [rp]
    consumer = str(uuid.uuid4())
    status, _, body = http(port, "PUT", f"/allocations/{consumer}", {
        "allocations": {rp: {"resources": {"VCPU": 2, "MEMORY_MB": 512}}},
        "project_id": str(uuid.uuid4()), "user_id": str(uuid.uuid4()),
        "consumer_generation": None}, mv="1.28")
    assert status == 204, body
    status, _, body = http(port, "GET", f"/resource_providers/{rp}/usages", mv="1.14")
    assert json.loads(body)["usages"] == {"VCPU": 2, "MEMORY_MB": 512}
    # The operator's policy.yaml, found where the tool puts it.
    status, _, body = http(port, "GET", "/traits", mv="1.6")
    assert status == 403 and "placement:traits:list" in body, (status, body)
    # Nothing said about the console: neither it nor the admin is served.
    for path in ("/console/", "/admin/", "/admin/login/"):
        assert http(port, "GET", path)[0] == 404, path
