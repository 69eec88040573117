"""A real Keystone on loopback and this service behind keystonemiddleware.

Both run from one throwaway virtualenv with requirements.txt and
requirements-keystone.txt, cached under
``${XDG_CACHE_HOME:-~/.cache}/placement-keystone/venv-<hash>`` (rebuilt
when either file or the Python changes).  Keystone: SQLite, fernet tokens,
bootstrapped admin, served by gunicorn.  This service: SQLite, migrated,
gunicorn, ``PLACEMENT_AUTH_STRATEGY=keystone``.
"""
import getpass
import grp
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

from tests.cached_venv import cached_venv

PROJECT_DIR = Path(__file__).resolve().parents[2]
PASSWORD = "keystone-test-password"


def log(message):
    sys.stderr.write(f"[keystone-test] {message}\n")
    sys.stderr.flush()


def ensure_venv():
    return cached_venv(
        "placement-keystone", ["requirements.txt", "requirements-keystone.txt"], log=log
    )


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_http(url, process, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{url}: server exited with {process.returncode}")
        try:
            requests.get(url, timeout=2)
            return
        except requests.RequestException:
            time.sleep(0.2)
    raise RuntimeError(f"{url}: no answer in {timeout}s")


def start(cmd, *, env, cwd, log_path):
    handle = open(log_path, "wb")
    return subprocess.Popen(cmd, env=env, cwd=cwd, stdout=handle, stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop(process):
    if process is None or process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OS_", "PLACEMENT_", "DJANGO_")) and k != "DATABASE_URL"}
    env.update(extra)
    return env


class Keystone:
    """Keystone serving http://127.0.0.1:<port>/v3 from ``workdir``."""

    def __init__(self, venv, workdir):
        self.venv = Path(venv)
        self.workdir = Path(workdir)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v3"
        self.process = None

    def setup(self):
        w = self.workdir
        conf = w / "keystone.conf"
        conf.write_text(
            "[DEFAULT]\n"
            f"log_file = {w / 'keystone-app.log'}\n"
            "[database]\n"
            f"connection = sqlite:///{w / 'keystone.db'}\n"
            "[token]\nprovider = fernet\n"
            f"[fernet_tokens]\nkey_repository = {w / 'fernet-keys'}\n"
            f"[fernet_receipts]\nkey_repository = {w / 'fernet-receipts'}\n"
            f"[credential]\nkey_repository = {w / 'credential-keys'}\n"
        )
        (w / "wsgi_keystone.py").write_text(
            "import sys\n"
            "del sys.argv[1:]  # keystone's config parser reads argv\n"
            "from keystone.server.wsgi import initialize_public_application\n"
            "application = initialize_public_application()\n"
        )
        env = clean_env(OS_KEYSTONE_CONFIG_FILES=str(conf))
        manage = [str(self.venv / "bin" / "keystone-manage"), "--config-file", str(conf)]
        owner = ["--keystone-user", getpass.getuser(),
                 "--keystone-group", grp.getgrgid(os.getgid()).gr_name]
        for args in (["db_sync"], ["fernet_setup", *owner], ["credential_setup", *owner],
                     ["bootstrap", "--bootstrap-password", PASSWORD,
                      "--bootstrap-admin-url", self.url,
                      "--bootstrap-internal-url", self.url,
                      "--bootstrap-public-url", self.url,
                      "--bootstrap-region-id", "RegionOne"]):
            subprocess.run(manage + args, env=env, cwd=w, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.process = start(
            [str(self.venv / "bin" / "gunicorn"), "wsgi_keystone:application",
             "-b", f"127.0.0.1:{self.port}", "-w", "1", "--chdir", str(w)],
            env=env, cwd=w, log_path=w / "keystone-server.log",
        )
        wait_http(self.url, self.process)

    # --- the Identity API ---------------------------------------------------
    def token(self, user, password=PASSWORD, project=None, system=False):
        scope = {"system": {"all": True}} if system else (
            {"project": {"name": project, "domain": {"id": "default"}}} if project else None)
        body = {"auth": {"identity": {"methods": ["password"], "password": {
            "user": {"name": user, "domain": {"id": "default"}, "password": password}}}}}
        if scope:
            body["auth"]["scope"] = scope
        response = requests.post(f"{self.url}/auth/tokens", json=body, timeout=30)
        assert response.status_code == 201, response.text
        return response.headers["X-Subject-Token"]

    def _call(self, admin_token, method, path, body=None):
        response = requests.request(method, f"{self.url}{path}", json=body, timeout=30,
                                    headers={"X-Auth-Token": admin_token})
        assert response.status_code < 300, (method, path, response.status_code, response.text)
        return response.json() if response.content else None

    def _id(self, admin_token, kind, name):
        found = self._call(admin_token, "GET", f"/{kind}?name={name}")[kind]
        return found[0]["id"] if found else None

    def ensure_project(self, admin_token, name):
        return self._id(admin_token, "projects", name) or self._call(
            admin_token, "POST", "/projects",
            {"project": {"name": name, "domain_id": "default"}})["project"]["id"]

    def ensure_role(self, admin_token, name):
        return self._id(admin_token, "roles", name) or self._call(
            admin_token, "POST", "/roles", {"role": {"name": name}})["role"]["id"]

    def add_user(self, admin_token, name, project_id, role_names):
        user_id = self._call(admin_token, "POST", "/users", {"user": {
            "name": name, "password": PASSWORD, "domain_id": "default"}})["user"]["id"]
        for role in role_names:
            role_id = self.ensure_role(admin_token, role)
            self._call(admin_token, "PUT",
                       f"/projects/{project_id}/users/{user_id}/roles/{role_id}")
        return user_id


class PlacementServer:
    """This project under gunicorn with PLACEMENT_AUTH_STRATEGY=keystone."""

    def __init__(self, venv, workdir, keystone_url, **settings):
        self.venv = Path(venv)
        self.workdir = Path(workdir)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = clean_env(
            DATABASE_URL=f"sqlite:///{self.workdir / 'placement.db'}",
            PLACEMENT_AUTH_STRATEGY="keystone",
            PLACEMENT_KEYSTONE_AUTH_URL=keystone_url,
            PLACEMENT_KEYSTONE_USERNAME="placement",
            PLACEMENT_KEYSTONE_PASSWORD=PASSWORD,
            PLACEMENT_KEYSTONE_PROJECT_NAME="service",
            PLACEMENT_KEYSTONE_INTERFACE="public",
            **settings,
        )
        self.process = None

    def setup(self):
        # The cached venv holds the requirements, not this checkout: the
        # checkout's own entry points (the healthcheck's database backend,
        # which start-up insists on) come from its metadata, written here
        # and put on the path.
        subprocess.run([str(self.venv / "bin" / "python"), "-c", "import setuptools; setuptools.setup()",
                        "-q", "egg_info", "--egg-base", str(self.workdir)],
                       cwd=PROJECT_DIR, check=True, stdout=subprocess.DEVNULL)
        self.env["PYTHONPATH"] = str(self.workdir)
        subprocess.run([str(self.venv / "bin" / "python"), "manage.py", "migrate", "--noinput"],
                       env=self.env, cwd=PROJECT_DIR, check=True, stdout=subprocess.DEVNULL)
        self.process = start(
            [str(self.venv / "bin" / "gunicorn"), "placement_site.wsgi:application",
             "-b", f"127.0.0.1:{self.port}", "-w", "1"],
            env=self.env, cwd=PROJECT_DIR, log_path=self.workdir / "placement-server.log",
        )
        wait_http(self.url + "/", self.process)
