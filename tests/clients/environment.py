"""The clients' virtualenv, this service under gunicorn, and the bridge to them.

The virtualenv holds requirements-clients.txt only and is cached under
``${XDG_CACHE_HOME:-~/.cache}/placement-clients/venv-<hash>`` (rebuilt when
that file or the Python changes).  The service runs from the project's own
virtualenv (the interpreter running pytest) against a fresh SQLite file,
``PLACEMENT_AUTH_STRATEGY=noauth2``, on a free loopback port.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cached_venv import cached_venv
from tests.keystone.environment import clean_env, free_port, start, stop, wait_http

PROJECT_DIR = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).resolve().parent / "driver.py"


def log(message):
    sys.stderr.write(f"[clients-test] {message}\n")
    sys.stderr.flush()


def ensure_venv():
    return cached_venv("placement-clients", ["requirements-clients.txt"], log=log)


class PlacementServer:
    """This project under gunicorn (2 workers, noauth2) on a temp SQLite db."""

    def __init__(self, workdir):
        self.workdir = Path(workdir)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = clean_env(
            # PLACEMENT_CLIENTS_DATABASE_URL: an empty database elsewhere
            # (e.g. MariaDB) to run the same clients against.
            DATABASE_URL=os.environ.get("PLACEMENT_CLIENTS_DATABASE_URL")
            or f"sqlite:///{self.workdir / 'placement.sqlite3'}",
            PLACEMENT_AUTH_STRATEGY="noauth2",
        )
        self.process = None

    def start(self):
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], env=self.env,
                       cwd=PROJECT_DIR, check=True, stdout=subprocess.DEVNULL)
        gunicorn = Path(sys.executable).parent / "gunicorn"
        self.process = start(
            [str(gunicorn), "placement_site.wsgi:application", "-b", f"127.0.0.1:{self.port}",
             "-w", "2", "--access-logfile", "-"],
            env=self.env, cwd=PROJECT_DIR, log_path=self.workdir / "placement-server.log",
        )
        wait_http(self.url + "/", self.process)

    def stop(self):
        stop(self.process)

    def log_text(self):
        path = self.workdir / "placement-server.log"
        return path.read_text(errors="replace") if path.exists() else ""


class Clients:
    """The bridge process (driver.py in the clients' venv)."""

    def __init__(self, venv, endpoint):
        self.venv = Path(venv)
        self.endpoint = endpoint
        self.process = subprocess.Popen(
            [str(self.venv / "bin" / "python"), str(DRIVER), endpoint],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, env=clean_env(), start_new_session=True,
        )

    def _ask(self, request):
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"client bridge died on {request}")
        return json.loads(line)

    def cli(self, *args, mv=None):
        """One `openstack` command; ``mv=None`` lets osc-placement negotiate."""
        argv = (["--os-placement-api-version", mv] if mv else []) + list(args)
        return self._ask({"op": "cli", "args": argv})

    def cli_json(self, *args, mv=None):
        answer = self.cli(*args, "-f", "json", mv=mv)
        assert answer["rc"] == 0, (args, answer)
        return json.loads(answer["out"])

    def sdk(self, call, *args, **kwargs):
        return self._ask({"op": "sdk", "call": call, "args": list(args), "kwargs": kwargs})

    def sdk_ok(self, call, *args, **kwargs):
        answer = self.sdk(call, *args, **kwargs)
        assert answer.get("ok"), (call, args, kwargs, answer)
        return answer["result"]

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
