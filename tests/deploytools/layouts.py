"""Each deployment tool's files, written by the test from the facts in
docs/deployment-tools.md (module path, option names, file places); nothing
is copied from those projects.

Two deviations, the same for every tool: the configuration directory is a
temporary ``etc/placement`` named by ``OS_PLACEMENT_CONFIG_DIR`` (upstream's
variable; the real /etc/placement is shared by the machine), and
``[api] auth_strategy = noauth2`` where the tool's Keystone is not here.
"""
import dataclasses
import os
import shutil
from pathlib import Path

# An operator's override: nobody may list traits (GET /traits: 403).
POLICY_OVERRIDE = '"placement:traits:list": "role:nobody"\n'
TOOLS = ["kolla", "helm", "osa", "devstack", "distro"]


@dataclasses.dataclass
class Layout:
    tool: str
    root: Path
    config_dir: Path
    argv: list
    env: dict
    output: Path            # the server's stdout and stderr
    request_log: Path       # where the tool's request log lines land
    state_dir: Path         # where the per-install secret key is kept
    stop_signal: str = "SIGINT"
    # How the tool runs placement-manage and placement-status: as the
    # service's user where it has one (the log file is that user's).
    run_as: list = dataclasses.field(default_factory=list)


def _write(path: Path, text: str, mode=0o644):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.chmod(path, mode)


def _conf(sections: dict) -> str:
    out = []
    for section, options in sections.items():
        out.append(f"[{section}]")
        out += [f"{name} = {value}" for name, value in options.items()]
        out.append("")
    return "\n".join(out)


def _uwsgi_ini(options: list) -> str:
    return "[uwsgi]\n" + "\n".join(f"{k} = {v}" for k, v in options) + "\n"


def write(tool: str, root: Path, venv: Path, url: str, port: int) -> Layout:
    etc = root / "etc" / "placement"
    etc.mkdir(parents=True)
    home = root / "home" / "placement"
    home.mkdir(parents=True)
    env = {"PATH": f"{venv}/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(home),
           "OS_PLACEMENT_CONFIG_DIR": str(etc), "LANG": "C.UTF-8"}
    output = root / "server.out"
    state = home / ".local" / "state" / "placement"
    database = {"connection": url}
    noauth = {"auth_strategy": "noauth2"}
    if tool == "kolla":
        # uwsgi /etc/placement/placement-api-uwsgi.ini; policy_file a bare
        # name; [DEFAULT] log_file.
        log = root / "var" / "log" / "kolla" / "placement" / "placement-api.log"
        log.parent.mkdir(parents=True)
        _write(etc / "placement.conf", _conf({
            "DEFAULT": {"debug": "False", "log_file": log},
            "api": noauth, "placement_database": database,
            "oslo_policy": {"policy_file": "policy.yaml"}}))
        _write(etc / "policy.yaml", POLICY_OVERRIDE)
        ini = etc / "placement-api-uwsgi.ini"
        _write(ini, _uwsgi_ini([
            ("add-header", "Connection: close"), ("buffer-size", 65535),
            ("die-on-term", "true"), ("enable-threads", "true"), ("exit-on-reload", "false"),
            ("hook-master-start", "unix_signal:15 gracefully_kill_them_all"),
            ("http-socket", f"127.0.0.1:{port}"), ("lazy-apps", "true"),
            ("module", "placement.wsgi.api:application"), ("processes", 2),
            ("socket-timeout", 30), ("thunder-lock", "true"), ("master", "true")]))
        argv = [str(venv / "bin" / "uwsgi"), str(ini)]
        return Layout(tool, root, etc, argv, env, output, log, state)
    if tool == "helm":
        # placement.conf plus placement.conf.d (the Keystone section with the
        # service password); logging.conf naming oslo.log's ContextFormatter;
        # policy.yaml beside placement.conf, policy_file unset.
        _write(etc / "placement.conf", _conf({
            "DEFAULT": {"log_config_append": etc / "logging.conf"},
            "placement_database": database}))
        _write(etc / "placement.conf.d" / "01-keystone.conf", _conf({
            "keystone_authtoken": {"auth_type": "password", "auth_url": "http://keystone:5000/v3",
                                   "username": "placement", "password": "secret-from-a-k8s-secret",
                                   "project_name": "service", "user_domain_name": "default",
                                   "project_domain_name": "default"}}), mode=0o600)
        # The test's own file: without Keystone here, noauth2 (proves the
        # directory is read: with keystone and no Keystone nothing answers).
        _write(etc / "placement.conf.d" / "99-test-noauth2.conf", _conf({"api": noauth}))
        _write(etc / "logging.conf", "\n".join([
            "[loggers]", "keys = root, placement", "",
            "[handlers]", "keys = stderr", "",
            "[formatters]", "keys = context", "",
            "[logger_root]", "level = WARNING", "handlers = stderr", "",
            "[logger_placement]", "level = INFO", "handlers = stderr", "qualname = placement",
            "propagate = 0", "",
            "[handler_stderr]", "class = StreamHandler", "args = (sys.stderr,)",
            "formatter = context", "",
            "[formatter_context]", "class = oslo_log.formatters.ContextFormatter",
            "datefmt = %Y-%m-%d %H:%M:%S", ""]))
        _write(etc / "policy.yaml", POLICY_OVERRIDE)
        ini = etc / "placement-api-uwsgi.ini"
        _write(ini, _uwsgi_ini([
            ("master", "true"), ("processes", 2), ("enable-threads", "true"),
            ("http-socket", f"127.0.0.1:{port}"), ("stats", f"127.0.0.1:{port + 1}"),
            ("module", "placement.wsgi.api:application"), ("lazy-apps", "true"),
            ("die-on-term", "true")]))
        argv = [str(venv / "bin" / "uwsgi"), "--ini", str(ini)]
        return Layout(tool, root, etc, argv, env, output, output, state)
    if tool == "osa":
        # uWSGI with virtualenv= and need-app = true; policy.yaml beside
        # placement.conf, policy_file unset.
        _write(etc / "placement.conf", _conf({
            "DEFAULT": {"debug": "False"}, "api": noauth, "placement_database": database}))
        _write(etc / "policy.yaml", POLICY_OVERRIDE)
        ini = root / "etc" / "uwsgi" / "placement-api.ini"
        _write(ini, _uwsgi_ini([
            ("master", "true"), ("processes", 2), ("threads", 2), ("enable-threads", "true"),
            ("virtualenv", venv), ("wsgi", "placement.wsgi.api:application"),
            ("need-app", "true"), ("http-socket", f"127.0.0.1:{port}"),
            ("die-on-term", "true"), ("buffer-size", 65535)]))
        argv = [shutil.which("uwsgi", path=f"{venv}/bin"), "--ini", str(ini)]
        return Layout(tool, root, etc, argv, env, output, output, state)
    if tool == "devstack":
        # The URL as devstack writes it: charset and SQLAlchemy's plugin.
        # devstack writes no policy file; the operator's override here is
        # the test's, beside placement.conf.
        sep = "&" if "?" in url else "?"
        extra = "charset=utf8" if url.startswith("mysql") else "client_encoding=utf8"
        _write(etc / "placement.conf", _conf({
            "DEFAULT": {"debug": "True"}, "api": noauth,
            "placement_database": {"connection": f"{url}{sep}{extra}&plugin=dbcounter"}}))
        _write(etc / "policy.yaml", POLICY_OVERRIDE)
        ini = etc / "placement-uwsgi.ini"
        _write(ini, _uwsgi_ini([
            ("processes", 2), ("master", "true"), ("enable-threads", "true"),
            ("module", "placement.wsgi.api:application"), ("http-socket", f"127.0.0.1:{port}"),
            ("lazy-apps", "true"), ("die-on-term", "true")]))
        argv = [str(venv / "bin" / "uwsgi"), "--ini", str(ini)]
        return Layout(tool, root, etc, argv, env, output, output, state)
    if tool == "distro":
        # Apache mod_wsgi, WSGIScriptAlias / /usr/bin/placement-api, the
        # daemon run as www-data; state_path, use_syslog and friends in
        # placement.conf.
        log = root / "var" / "log" / "placement" / "placement-api.log"
        log.parent.mkdir(parents=True)
        os.chmod(log.parent, 0o777)
        state = root / "var" / "lib" / "placement"
        state.mkdir(parents=True)
        os.chmod(state, 0o777)
        _write(etc / "placement.conf", _conf({
            "DEFAULT": {"log_file": log, "use_syslog": "False"},
            "api": noauth, "placement_database": database,
            "placement": {"state_path": state, "randomize_allocation_candidates": "true"},
            "oslo_policy": {"enforce_scope": "true"}}))
        _write(etc / "policy.yaml", POLICY_OVERRIDE)
        script = root / "usr" / "bin" / "placement-api"
        script.parent.mkdir(parents=True)
        shutil.copy(venv / "bin" / "placement-api", script)
        run = root / "run"
        run.mkdir()
        os.chmod(run, 0o777)
        modules = "/usr/lib/apache2/modules"
        conf = root / "apache2.conf"
        _write(conf, "\n".join([
            f"ServerRoot {root}", f"PidFile {run}/apache2.pid", f"DefaultRuntimeDir {run}",
            f"Listen 127.0.0.1:{port}", "ServerName localhost",
            f"LoadModule mpm_event_module {modules}/mod_mpm_event.so",
            f"LoadModule authz_core_module {modules}/mod_authz_core.so",
            f"LoadModule wsgi_module {modules}/mod_wsgi.so",
            "User www-data", "Group www-data", f"ErrorLog {root}/apache-error.log",
            "LogLevel warn",
            "WSGIDaemonProcess placement-api processes=2 threads=4 user=www-data "
            f"group=www-data display-name=%{{GROUP}} python-home={venv}",
            "WSGIProcessGroup placement-api", "WSGIApplicationGroup %{GLOBAL}",
            "WSGIPassAuthorization On", f"WSGISocketPrefix {run}/wsgi",
            f"WSGIScriptAlias / {script}",
            f"<Directory {script.parent}>", "  Require all granted", "</Directory>", ""]))
        argv = ["/usr/sbin/apache2", "-f", str(conf), "-DFOREGROUND"]
        return Layout(tool, root, etc, argv, env, root / "apache-error.log", log, state,
                      stop_signal="SIGTERM", run_as=["runuser", "-u", "www-data", "--"])
    raise ValueError(tool)
