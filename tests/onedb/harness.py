"""Upstream openstack-placement 16.0.0 and this service on one database.

Both are driven the way an operator drives them: each one's own
``placement-manage db sync`` and ``placement-status upgrade check``, each
served by gunicorn from its own virtualenv (upstream's is built once from
requirements-upstream.txt and cached, tests/cached_venv.py).  Databases are
named ``<ONEDB_DB_PREFIX>_<pid>_<n>_<label>`` (default prefix ``onedb``) and
dropped afterwards; ports come from ONEDB_PORTS (default 20700-20749).

ONEDB_PG_URL / ONEDB_MYSQL_URL name the servers (no database), default
PostgreSQL and MariaDB on 127.0.0.1.  ONEDB_LOG_DIR keeps every server's log.
"""
import itertools
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from placement_core.database import dbapi_connect
from tests.cached_venv import cached_venv
from tests.onedb.proxy import connection

PROJECT_DIR = Path(__file__).resolve().parents[2]
OURS_PYTHON = PROJECT_DIR / ".venv" / "bin" / "python"
OURS_GUNICORN = PROJECT_DIR / ".venv" / "bin" / "gunicorn"
SERVERS = {
    "postgres": os.environ.get("ONEDB_PG_URL", "postgres://root@127.0.0.1:5432"),
    "mysql": os.environ.get("ONEDB_MYSQL_URL", "mysql://root@127.0.0.1:3306"),
}
DB_PREFIX = os.environ.get("ONEDB_DB_PREFIX", "onedb")
_names = itertools.count()


def upstream_venv():
    return cached_venv("placement-onedb", ["requirements-upstream.txt"],
                       log=lambda line: print(line, file=sys.stderr))


def server_answers(backend):
    try:
        dbapi_connect(_admin_url(backend)).close()
        return True
    except Exception:  # noqa: BLE001 - any failure means "not there"
        return False


def _admin_url(backend):
    return SERVERS[backend] + ("/postgres" if backend == "postgres" else "/mysql")


class Database:
    """A fresh, empty database on ``backend``; dropped by ``drop()``."""

    def __init__(self, backend, label="db"):
        self.backend = backend
        self.name = f"{DB_PREFIX}_{os.getpid()}_{next(_names)}_{label}"
        self._admin("DROP DATABASE IF EXISTS {}")
        # The server's default character set, as upstream's install guide does.
        self._admin("CREATE DATABASE {}")
        self.url = f"{SERVERS[backend]}/{self.name}"

    @property
    def upstream_url(self):
        """The SQLAlchemy URL upstream's placement.conf takes."""
        if self.backend == "postgres":
            return self.url.replace("postgres://", "postgresql+psycopg2://", 1)
        return self.url.replace("mysql://", "mysql+pymysql://", 1) + "?charset=utf8"

    def _admin(self, sql):
        conn = dbapi_connect(_admin_url(self.backend))
        try:
            if self.backend == "postgres":
                conn.autocommit = True
                sql = sql.replace("DROP DATABASE IF EXISTS {}",
                                  "DROP DATABASE IF EXISTS {} WITH (FORCE)")
            conn.cursor().execute(sql.format(self.name))
            conn.commit()
        finally:
            conn.close()

    def connect(self):
        conn = dbapi_connect(self.url)
        if self.backend == "postgres":
            conn.autocommit = True
        else:
            conn.autocommit(True)
        return conn

    def query(self, sql, params=()):
        conn = self.connect()
        try:
            cur = conn.cursor()
            cur.execute(sql, params)
            return [tuple(row) for row in cur.fetchall()]
        finally:
            conn.close()

    def drop(self):
        self._admin("DROP DATABASE IF EXISTS {}")


def _clean_env():
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("PLACEMENT_", "OS_")) and k not in (
                "DATABASE_URL", "DJANGO_SETTINGS_MODULE")}


def upstream_conf(db, directory, **options):
    """Write upstream's placement.conf for ``db`` into ``directory``."""
    sections = {"api": {"auth_strategy": "noauth2"},
                "placement_database": {"connection": db.upstream_url},
                "DEFAULT": {"debug": "False"}}
    for key, value in options.items():
        section, _, name = key.partition("__")
        sections.setdefault(section, {})[name] = value
    path = Path(directory) / "placement.conf"
    path.write_text("".join(
        f"[{section}]\n" + "".join(f"{k} = {v}\n" for k, v in values.items())
        for section, values in sections.items()))
    return path


def upstream_env(conf_dir):
    env = _clean_env()
    env["OS_PLACEMENT_CONFIG_DIR"] = str(conf_dir)
    return env


def ours_env(db):
    env = _clean_env()
    env.update(DATABASE_URL=db.url, PLACEMENT_AUTH_STRATEGY="noauth2",
               PLACEMENT_LOG_LEVEL="WARNING", PLACEMENT_DB_CONN_MAX_AGE="0")
    return env


def run_upstream(db, *args, timeout=300):
    """Upstream's own console script (``placement-manage``, ``placement-status``)."""
    with tempfile.TemporaryDirectory(prefix="h7-onedb-") as tmp:
        conf = upstream_conf(db, tmp)
        tool = upstream_venv() / "bin" / args[0]
        return subprocess.run([str(tool), "--config-file", str(conf), *args[1:]],
                              env=upstream_env(tmp), cwd=tmp, capture_output=True,
                              text=True, timeout=timeout)


def run_ours(db, tool, *args, timeout=300):
    """This service's console script (placement-manage / placement-status)."""
    func = {"placement-manage": "manage", "placement-status": "status"}[tool]
    code = f"import sys; from maintenance.cli import {func}; sys.exit({func}())"
    return subprocess.run([str(OURS_PYTHON), "-c", code, *args], env=ours_env(db),
                          cwd=PROJECT_DIR, capture_output=True, text=True, timeout=timeout)


def free_port(low=None, high=None):
    spec = os.environ.get("ONEDB_PORTS", "20700-20749")
    low, high = (int(p) for p in spec.split("-")) if low is None else (low, high)
    for port in range(low, high + 1):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {spec}")


class Server:
    """One gunicorn (``kind``: "upstream" or "ours") serving ``db``.

    ``bind``: ``unix:/path`` or none (a free port of ONEDB_PORTS); ``base``
    is what proxy.connection() and HTTP clients take.  ``settings``: policy
    and CORS, as the conformance runner derives them from a gabbi file's
    fixtures.  ``own_group=False`` leaves the server in the caller's process
    group, so that stopping the caller's group stops it too.
    """

    def __init__(self, kind, db, workers=2, threads=1, bind=None, settings=None,
                 own_group=True):
        self.kind, self.db = kind, db
        self.workers, self.threads = workers, threads
        self.bind = bind
        self.base = bind
        self.settings = settings or {}
        self.own_group = own_group
        self.proc = self.tmp = self.log = None

    def _upstream_options(self):
        s = self.settings
        options = {"DEFAULT__default_log_levels": (
            "placement=WARNING,routes=WARNING,sqlalchemy=WARNING,oslo_db=WARNING,"
            "oslo_policy=WARNING,stevedore=WARNING")}
        if "enforce_new_defaults" in s:
            options["oslo_policy__enforce_new_defaults"] = str(s["enforce_new_defaults"])
            options["oslo_policy__enforce_scope"] = str(s.get("enforce_scope", True))
        if s.get("policy_file"):
            options["oslo_policy__policy_file"] = s["policy_file"]
        if s.get("cors_allowed_origins"):
            options["cors__allowed_origin"] = ",".join(s["cors_allowed_origins"])
        if s.get("cors_allow_headers"):
            options["cors__allow_headers"] = ",".join(s["cors_allow_headers"])
        return options

    def _ours_env(self):
        s, env = self.settings, ours_env(self.db)
        if "enforce_new_defaults" in s:
            env["PLACEMENT_ENFORCE_NEW_DEFAULTS"] = str(s["enforce_new_defaults"]).lower()
            env["PLACEMENT_ENFORCE_SCOPE"] = str(s.get("enforce_scope", True)).lower()
        if s.get("policy_file"):
            env["PLACEMENT_POLICY_FILE"] = s["policy_file"]
        if s.get("cors_allowed_origins"):
            env["PLACEMENT_CORS_ALLOWED_ORIGINS"] = ",".join(s["cors_allowed_origins"])
        if s.get("cors_allow_headers"):
            env["PLACEMENT_CORS_ALLOW_HEADERS"] = ",".join(s["cors_allow_headers"])
        return env

    def start(self):
        self.tmp = tempfile.mkdtemp(prefix=f"h7-onedb-{self.kind}-")
        self.log = open(Path(self.tmp) / "server.log", "w")
        if self.bind is None:
            self.port = free_port()
            self.bind = f"127.0.0.1:{self.port}"
            self.base = f"http://{self.bind}"
        if self.kind == "upstream":
            upstream_conf(self.db, self.tmp, **self._upstream_options())
            argv = [str(upstream_venv() / "bin" / "gunicorn"), "placement.wsgi.api:application"]
            env, cwd = upstream_env(self.tmp), self.tmp
        else:
            argv = [str(OURS_GUNICORN), "placement_site.wsgi:application"]
            env, cwd = self._ours_env(), PROJECT_DIR
        # gunicorn's control socket per server (two never share one)
        env["XDG_RUNTIME_DIR"] = self.tmp
        argv += ["-b", self.bind, "-w", str(self.workers), "--timeout", "120"]
        if self.threads > 1:
            argv += ["-k", "gthread", "--threads", str(self.threads)]
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=self.own_group)
        self._wait_up()
        return self

    def _wait_up(self, limit=90):
        deadline = time.time() + limit
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} exited at start:\n{self.log_text()[-2000:]}")
            conn = connection(self.base, timeout=2)
            try:
                conn.request("GET", "/")
                conn.getresponse().read()
                return
            except OSError:
                time.sleep(0.3)
            finally:
                conn.close()
        raise RuntimeError(f"{self.kind} did not answer in {limit} s:\n{self.log_text()[-2000:]}")

    def log_text(self):
        self.log.flush()
        return (Path(self.tmp) / "server.log").read_text(errors="replace")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
                self.proc.wait(timeout=20)
        self.proc = None
        if self.log is not None:
            self.log.close()
            self.log = None
            keep = os.environ.get("ONEDB_LOG_DIR")  # the servers' logs, to read afterwards
            if keep:
                Path(keep).mkdir(parents=True, exist_ok=True)
                shutil.copy(Path(self.tmp) / "server.log",
                            Path(keep) / f"{self.db.name}-{self.kind}-{Path(self.tmp).name}.log")
            shutil.rmtree(self.tmp, ignore_errors=True)

    def _signal(self, number):
        if self.own_group:
            os.killpg(self.proc.pid, number)
        else:  # the gunicorn master stops its own workers
            self.proc.send_signal(number)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc):
        self.stop()
        return False
