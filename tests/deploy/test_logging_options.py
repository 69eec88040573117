"""Logging through oslo.log: its [DEFAULT] options read from placement.conf
and OS_DEFAULT__*, applied (files, context lines with the request ids, JSON,
a logging.conf naming oslo.log's formatters), refused with one line when bad;
and a real server logging one line per request with its request id."""
import json
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from placement_core import request_scope
from placement_site import config, logsetup

PROJECT_DIR = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).parent / "gunicorn"


@pytest.fixture
def relog():
    """Set logging up from a placement.conf text for one test, then put the suite's back."""
    def apply(tmp_path, text, **placement):
        (tmp_path / "placement.conf").write_text(text)
        values, conf = config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path), **placement})
        logsetup.setup(conf, logsetup.build(values))
        return conf
    yield apply
    logsetup.configure(django_settings.LOGGING)


def test_oslo_log_options_read_from_placement_conf(tmp_path):
    (tmp_path / "placement.conf").write_text(
        "[DEFAULT]\ndebug = true\nlog_file = api.log\nlog_dir = /var/log/placement\n"
        "use_json = true\nuse_journal = true\nuse_syslog = false\n"
        "syslog_log_facility = LOG_LOCAL3\nlog_config_append = /etc/placement/logging.conf\n"
        "logging_context_format_string = %(request_id)s %(message)s\n"
        "default_log_levels = placement=INFO,keystonemiddleware=WARN\n")
    _, conf = config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)})
    assert (conf.debug, conf.log_file, conf.log_dir, conf.use_json, conf.use_journal,
            conf.use_syslog, conf.syslog_log_facility, conf.log_config_append) == (
        True, "api.log", "/var/log/placement", True, True, False, "LOG_LOCAL3",
        "/etc/placement/logging.conf")
    assert conf.logging_context_format_string == "%(request_id)s %(message)s"
    assert conf.default_log_levels == ["placement=INFO", "keystonemiddleware=WARN"]


def test_context_lines_carry_the_request_ids_user_and_project(tmp_path, relog):
    path = tmp_path / "placement.log"
    relog(tmp_path, f"[DEFAULT]\nlog_file = {path}\n")
    global_id = f"req-{uuid.uuid4()}"
    caller = request_scope.Caller(request_id="req-inner", global_request_id=global_id,
                                  user_id="alice", project_id="p1")
    with request_scope.bound(caller):
        logging.getLogger("placement.test").warning("inside a request")
    logging.getLogger("placement.test").warning("outside\nforged line")
    inside, outside = path.read_text().splitlines()
    # oslo.log's default logging_context_format_string.
    assert f"WARNING placement.test [{global_id} req-inner alice p1 - - - -] inside" in inside
    # No request: logging_default_format_string, and no forged second line.
    assert "WARNING placement.test [-] outside\\x0aforged line" in outside


@pytest.mark.django_db
def test_json_lines_carry_the_request_ids(tmp_path, relog, api):
    path = tmp_path / "json.log"
    relog(tmp_path, f"[DEFAULT]\nlog_file = {path}\nuse_json = true\n")
    global_id = f"req-{uuid.uuid4()}"
    response = api.get("/resource_providers", headers={"x-openstack-request-id": global_id})
    assert response.status_code == 200
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logging.getLogger("placement.test").exception("failed")
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    (access,) = [e for e in entries if e["name"] == "placement.requestlog"]
    assert access["context"]["request_id"] == response["x-openstack-request-id"]
    assert access["context"]["global_request_id"] == global_id
    assert access["context"]["user"] == "admin"
    assert access["levelname"] == "INFO"
    assert '"GET /resource_providers" status: 200' in access["message"]
    (failed,) = [e for e in entries if e["message"] == "failed"]
    assert failed["context"] == {} and "RuntimeError: boom" in "".join(failed["traceback"])


def test_placement_log_level_without_debug(tmp_path, relog):
    path = tmp_path / "placement.log"
    relog(tmp_path, f"[DEFAULT]\nlog_file = {path}\n", PLACEMENT_LOG_LEVEL="WARNING")
    logging.getLogger("placement.test").info("below the level")
    logging.getLogger("placement.test").warning("at the level")
    assert "below" not in path.read_text() and "at the level" in path.read_text()
    relog(tmp_path, f"[DEFAULT]\nlog_file = {path}\ndebug = true\n",
          PLACEMENT_LOG_LEVEL="WARNING")
    logging.getLogger("placement.test").debug("debugging")
    assert "debugging" in path.read_text()


def helm_logging_conf(path, formatter="oslo_log.formatters.ContextFormatter"):
    """A logging.conf shaped as openstack-helm writes it (oslo.log's formatter)."""
    path.write_text(f"""[loggers]
keys = root, placement
[handlers]
keys = stdout, stderr, null
[formatters]
keys = context, default
[logger_root]
level = WARNING
handlers = stdout
[logger_placement]
level = INFO
handlers = stdout
qualname = placement
propagate = 0
[handler_null]
class = logging.NullHandler
formatter = default
args = ()
[handler_stdout]
class = StreamHandler
args = (sys.stdout,)
formatter = context
[handler_stderr]
class = StreamHandler
args = (sys.stderr,)
formatter = context
[formatter_context]
class = {formatter}
datefmt = %Y-%m-%d %H:%M:%S
[formatter_default]
format = %(message)s
datefmt = %Y-%m-%d %H:%M:%S
""")


def test_log_config_append_with_oslo_formatters(tmp_path, relog, capsys):
    helm_logging_conf(tmp_path / "logging.conf")
    relog(tmp_path, f"[DEFAULT]\nlog_config_append = {tmp_path / 'logging.conf'}\n")
    with request_scope.bound(request_scope.Caller(request_id="req-conf")):
        logging.getLogger("placement.test").info("through logging.conf")
    out = capsys.readouterr().out
    assert "INFO placement.test [None req-conf - - - - - -] through logging.conf" in out
    assert "Logging error" not in out


def start(env_extra, tmp_path):
    env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=str(tmp_path),
               DATABASE_URL=f"sqlite:///{tmp_path / 'x.sqlite3'}", **env_extra)
    return subprocess.run(
        [sys.executable, "-c", "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = "
         "'placement_site.settings'; django.setup(); import logging; "
         "logging.getLogger('placement.test').warning('started')"],
        env=env, cwd=PROJECT_DIR, capture_output=True, text=True, timeout=60)


def test_bad_values_stop_start_up_with_one_line(tmp_path):
    result = start({"OS_DEFAULT__USE_JSON": "sometimes"}, tmp_path)
    assert result.returncode != 0
    assert result.stderr.strip() == (
        "placement: invalid value for [DEFAULT] use_json: Unexpected boolean value 'sometimes'")
    conf = tmp_path / "bad-logging.conf"
    conf.write_text("[loggers]\nkeys = root\n[handlers]\nkeys = h\n[formatters]\nkeys =\n"
                    "[logger_root]\nhandlers = h\n[handler_h]\nclass = NoSuchHandler\nargs = ()\n")
    try:
        import systemd.journal  # noqa: F401
    except ImportError:
        # oslo.log needs systemd-python for use_journal, as upstream's does.
        result = start({"OS_DEFAULT__USE_JOURNAL": "true"}, tmp_path)
        assert result.returncode != 0
        assert result.stderr.strip() == "placement: logging: Systemd bindings do not exist"
    for bad in (str(conf), str(tmp_path / "missing.conf")):
        result = start({"OS_DEFAULT__LOG_CONFIG_APPEND": bad}, tmp_path)
        assert result.returncode != 0
        assert result.stderr.strip().splitlines()[-1].startswith("placement: logging: ")
        assert bad in result.stderr and "Traceback" not in result.stderr


# --- a real server: gunicorn with a helm-style logging.conf -----------------

def free_port():
    spec = os.environ.get("PLACEMENT_TEST_PORTS")
    candidates = range(*(int(p) + i for i, p in enumerate(spec.split("-")))) if spec else [0]
    for port in candidates:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return sock.getsockname()[1]
    pytest.skip(f"no free port in {spec}")


def serve(tmp_path, placement_conf):
    """gunicorn on placement_site.wsgi with ``placement_conf``; (process, port)."""
    (tmp_path / "placement.conf").write_text(placement_conf)
    env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=str(tmp_path),
               DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
               PLACEMENT_AUTH_STRATEGY="noauth2", PLACEMENT_STATE_PATH=str(tmp_path / "state"))
    env.pop("DJANGO_SETTINGS_MODULE", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], env=env, cwd=PROJECT_DIR,
                   check=True, capture_output=True, timeout=120)
    port = free_port()
    out = open(tmp_path / "server.out", "w")
    proc = subprocess.Popen([str(GUNICORN), "placement_site.wsgi:application", "-w", "1",
                             "-b", f"127.0.0.1:{port}"], env=env, cwd=PROJECT_DIR,
                            stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthcheck", timeout=2)
            return proc, port
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.3)
    proc.terminate()
    pytest.fail(f"gunicorn did not answer:\n{(tmp_path / 'server.out').read_text()}")


def get(port, path, **headers):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                     headers={"X-Auth-Token": "admin", **headers})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.headers["x-openstack-request-id"]


def stop(proc, tmp_path):
    proc.terminate()
    proc.wait(timeout=30)
    return (tmp_path / "server.out").read_text()


def test_a_server_with_a_helm_logging_conf_logs_each_request_with_its_id(tmp_path):
    helm_logging_conf(tmp_path / "logging.conf")
    proc, port = serve(tmp_path, f"[DEFAULT]\nlog_config_append = {tmp_path / 'logging.conf'}\n")
    global_id = f"req-{uuid.uuid4()}"
    try:
        ids = [get(port, "/"), get(port, "/resource_providers"),
               get(port, "/resource_providers?name=x", **{"X-OpenStack-Request-ID": global_id})]
    finally:
        output = stop(proc, tmp_path)
    assert "Logging error" not in output
    lines = [line for line in output.splitlines() if "placement.requestlog" in line]
    assert len(lines) == 3, output
    for request_id, line in zip(ids, lines):
        assert request_id.startswith("req-") and f" {request_id} admin admin " in line
    assert f"[{global_id} {ids[2]} admin admin" in lines[2]


def test_a_server_with_use_json_writes_json_lines(tmp_path):
    # log_dir alone: the file is named after the program, as oslo.log names it.
    log = tmp_path / "logs" / "gunicorn.log"
    log.parent.mkdir()  # oslo.log creates no directory, as deployment tools know
    proc, port = serve(tmp_path, f"[DEFAULT]\nuse_json = true\nlog_dir = {log.parent}\n")
    try:
        request_id = get(port, "/resource_providers")
    finally:
        output = stop(proc, tmp_path)
    assert "Logging error" not in output + log.read_text()
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    (access,) = [e for e in entries if e["name"] == "placement.requestlog"]
    assert access["context"]["request_id"] == request_id
