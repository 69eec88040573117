"""Upstream's [DEFAULT] logging options: read from placement.conf and
OS_DEFAULT__*, applied (files, JSON lines with the request ids, syslog, a
logging config file), and refused with one line when bad."""
import json
import logging
import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from placement_core import request_scope
from placement_site import config, logsetup

PROJECT_DIR = Path(__file__).resolve().parents[2]


@pytest.fixture
def relog():
    """Apply a LOGGING dict for one test, then put the suite's back."""
    def apply(values):
        logsetup.configure(logsetup.build(values))
    yield apply
    logsetup.configure(django_settings.LOGGING)


def test_options_read_from_placement_conf_and_os_variables(tmp_path):
    (tmp_path / "placement.conf").write_text(
        "[DEFAULT]\ndebug = true\nlog_file = api.log\nlog_dir = /var/log/placement\n"
        "use_json = true\nuse_syslog = false\nsyslog_log_facility = LOG_LOCAL3\n"
        "log_config_append = /etc/placement/logging.conf\n")
    environ = {"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)}
    values, _ = config.load(environ)
    assert (values["LOG_DEBUG"], values["LOG_FILE"], values["LOG_DIR"], values["LOG_USE_JSON"],
            values["LOG_USE_SYSLOG"], values["LOG_SYSLOG_FACILITY"],
            values["LOG_CONFIG_APPEND"]) == (
        True, "api.log", "/var/log/placement", True, False, "LOG_LOCAL3",
        "/etc/placement/logging.conf")
    environ.update(OS_DEFAULT__DEBUG="false", OS_DEFAULT__USE_JSON="0",
                   OS_DEFAULT__LOG_DIR="/srv/logs")
    values, _ = config.load(environ)
    assert (values["LOG_DEBUG"], values["LOG_USE_JSON"], values["LOG_DIR"]) == (
        False, False, "/srv/logs")


def test_defaults_log_to_stderr_at_info(tmp_path):
    values, _ = config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)})
    built = logsetup.build(values)
    assert list(built["handlers"]) == ["console"]
    assert built["root"]["level"] == "INFO"
    assert built["handlers"]["console"]["formatter"] == "plain"


def test_debug_lowers_the_level():
    assert logsetup.build({"LOG_DEBUG": True, "PLACEMENT_LOG_LEVEL": "WARNING"})[
        "root"]["level"] == "DEBUG"
    assert logsetup.build({"PLACEMENT_LOG_LEVEL": "WARNING"})["root"]["level"] == "WARNING"


def test_log_file_relative_to_log_dir_and_log_dir_alone(tmp_path, monkeypatch):
    built = logsetup.build({"LOG_FILE": "api.log", "LOG_DIR": str(tmp_path / "logs")})
    assert list(built["handlers"]) == ["file"]
    assert built["handlers"]["file"]["filename"] == str(tmp_path / "logs" / "api.log")
    monkeypatch.setattr(sys, "argv", ["/usr/bin/gunicorn", "placement_site.wsgi"])
    built = logsetup.build({"LOG_DIR": str(tmp_path / "logs")})
    assert built["handlers"]["file"]["filename"] == str(tmp_path / "logs" / "gunicorn.log")


def test_log_file_lines_land_in_the_file(tmp_path, relog):
    path = tmp_path / "placement.log"
    relog({"LOG_FILE": str(path)})
    logging.getLogger("placement.test").warning("to the file\nforged line")
    assert path.read_text() == "to the file\\x0aforged line\n"


@pytest.mark.django_db
def test_json_lines_parse_and_carry_the_request_ids(tmp_path, relog, api):
    path = tmp_path / "json.log"
    relog({"LOG_FILE": str(path), "LOG_USE_JSON": True})
    global_id = f"req-{uuid.uuid4()}"
    response = api.get("/resource_providers", headers={"x-openstack-request-id": global_id})
    assert response.status_code == 200
    with request_scope.bound(request_scope.Caller(request_id="req-inner",
                                                  global_request_id=global_id)):
        logging.getLogger("placement.test").error("inside a request")
    logging.getLogger("placement.test").warning("outside")
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    (access,) = [e for e in entries if e["logger"] == "placement.requestlog"]
    assert access["request_id"] == response["x-openstack-request-id"]
    assert access["global_request_id"] == global_id
    assert access["level"] == "INFO"
    assert '"GET /resource_providers" status: 200' in access["message"]
    inner = [e for e in entries if e["message"] == "inside a request"][0]
    assert (inner["request_id"], inner["global_request_id"]) == ("req-inner", global_id)
    outside = [e for e in entries if e["message"] == "outside"][0]
    assert (outside["request_id"], outside["global_request_id"]) == ("", "")
    assert all(set(e) >= {"timestamp", "level", "logger", "message", "process"}
               for e in entries)


def test_json_lines_keep_a_traceback_in_one_line(tmp_path, relog):
    path = tmp_path / "json.log"
    relog({"LOG_FILE": str(path), "LOG_USE_JSON": True})
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logging.getLogger("placement.test").exception("failed")
    (line,) = path.read_text().splitlines()
    entry = json.loads(line)
    assert entry["message"] == "failed" and "RuntimeError: boom" in entry["traceback"]


def test_syslog(tmp_path, relog, monkeypatch):
    address = str(tmp_path / "log.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(address)
    server.settimeout(5)
    monkeypatch.setattr(logsetup, "SYSLOG_ADDRESS", address)
    try:
        relog({"LOG_USE_SYSLOG": True, "LOG_SYSLOG_FACILITY": "LOG_LOCAL3",
               "LOG_FILE": str(tmp_path / "also.log")})
        logging.getLogger("placement.test").warning("to syslog")
        datagram = server.recv(4096).decode()
    finally:
        server.close()
    # <priority> = facility local3 (19) * 8 + warning (4).
    assert datagram.startswith(f"<{19 * 8 + 4}>placement: WARNING placement.test to syslog")
    assert "to syslog" in (tmp_path / "also.log").read_text()


def test_log_config_append_is_applied_last(tmp_path, relog):
    target = tmp_path / "custom.log"
    conf = tmp_path / "logging.conf"
    conf.write_text(f"""
[loggers]
keys = root
[handlers]
keys = custom
[formatters]
keys = short
[logger_root]
level = WARNING
handlers = custom
[handler_custom]
class = FileHandler
args = ({str(target)!r},)
formatter = short
[formatter_short]
format = CUSTOM %(levelname)s %(message)s
""")
    relog({"LOG_CONFIG_APPEND": str(conf)})
    logging.getLogger("placement.test").warning("appended")
    logging.getLogger("placement.test").info("below the level")
    assert target.read_text() == "CUSTOM WARNING appended\n"


@pytest.mark.parametrize("values,message", [
    ({"LOG_USE_SYSLOG": True, "LOG_SYSLOG_FACILITY": "LOG_NOPE"},
     "invalid value 'LOG_NOPE' for [DEFAULT] syslog_log_facility: expected one of LOG_AUTH"),
    ({"LOG_CONFIG_APPEND": "/nonexistent/logging.conf"},
     "cannot read [DEFAULT] log_config_append /nonexistent/logging.conf: "
     "No such file or directory"),
    ({"LOG_FILE": "/proc/placement/x.log"}, "cannot write the log file /proc/placement/x.log"),
])
def test_bad_values_are_one_line(values, message):
    with pytest.raises(config.ConfigError) as info:
        logsetup.build(values)
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_use_syslog_without_a_syslog_daemon(monkeypatch, tmp_path):
    monkeypatch.setattr(logsetup, "SYSLOG_ADDRESS", str(tmp_path / "missing"))
    with pytest.raises(config.ConfigError, match="use_syslog: .* does not exist"):
        logsetup.build({"LOG_USE_SYSLOG": True})


def test_a_config_file_in_the_wrong_format(tmp_path):
    conf = tmp_path / "logging.yaml"
    conf.write_text("version: 1\n")
    with pytest.raises(config.ConfigError) as info:
        logsetup.build({"LOG_CONFIG_APPEND": str(conf)})
    assert "\n" not in str(info.value) and "log_config_append" in str(info.value)


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
    assert result.stderr.strip() == ("placement: invalid value 'sometimes' for "
                                     "OS_DEFAULT__USE_JSON: expected true or false "
                                     "(also 1/0, yes/no, on/off)")
    conf = tmp_path / "bad-logging.conf"
    conf.write_text("[loggers]\nkeys = root\n[handlers]\nkeys = h\n[formatters]\nkeys =\n"
                    "[logger_root]\nhandlers = h\n[handler_h]\nclass = NoSuchHandler\nargs = ()\n")
    result = start({"OS_DEFAULT__LOG_CONFIG_APPEND": str(conf)}, tmp_path)
    assert result.returncode != 0
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"placement: [DEFAULT] log_config_append {conf}: ")
