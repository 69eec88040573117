"""The operator's settings, read and checked once at start-up.

Three spellings of every setting, strongest first:

1. the ``PLACEMENT_*`` variable (the contract with the shared tools, DESIGN.md
   section 5; ``DATABASE_URL`` for the database);
2. upstream's environment override ``OS_<GROUP>__<OPTION>``;
3. upstream's ``placement.conf``: the files named by ``--config-file`` (the
   command-line tools pass them on in ``PLACEMENT_CONFIG_FILES``), otherwise
   ``$OS_PLACEMENT_CONFIG_DIR/placement.conf`` (default ``/etc/placement``)
   when it exists.

oslo.config reads (2) and (3) with upstream's group and option names; the
``PLACEMENT_*`` values are parsed by the same option types, so a bad value is
refused the same way whichever spelling carried it.
"""
import os
import re
from urllib.parse import parse_qsl

from oslo_config import cfg
from oslo_log import log as oslo_log
from oslo_middleware import cors, http_proxy_to_wsgi

ZERO_UUID = "00000000-0000-0000-0000-000000000000"
# The headers upstream Placement lets a cross-origin page send and read ([cors]).
CORS_HEADERS = ("X-Auth-Token", "X-Openstack-Request-Id", "X-Identity-Status", "X-Roles",
                "X-Service-Catalog", "X-User-Id", "X-Tenant-Id", "OpenStack-API-Version")
CORS_METHODS = ("GET", "PUT", "POST", "DELETE", "PATCH")

# oslo.middleware's [cors] defaults are empty lists: upstream's are set.
cors.set_defaults(allow_headers=list(CORS_HEADERS), expose_headers=list(CORS_HEADERS),
                  allow_methods=list(CORS_METHODS))


def _middleware_opt(options, name):
    """oslo.middleware's own option object: registered here and again by its
    middleware, which oslo.config accepts only for the very same object."""
    (opt,) = [o for o in options if o.dest == name]
    return opt


# (group, option, PLACEMENT_* variable or None, settings name)
OPTIONS = [
    ("placement_database", cfg.StrOpt("connection", secret=True), None, "DATABASE_CONNECTION"),
    ("api", cfg.StrOpt("auth_strategy", default="keystone", choices=("keystone", "noauth2")),
     "PLACEMENT_AUTH_STRATEGY", "PLACEMENT_AUTH_STRATEGY"),
    ("placement", cfg.BoolOpt("randomize_allocation_candidates", default=False),
     "PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES", "PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES"),
    ("placement", cfg.IntOpt("max_allocation_candidates", default=-1, min=-1),
     "PLACEMENT_MAX_ALLOCATION_CANDIDATES", "PLACEMENT_MAX_ALLOCATION_CANDIDATES"),
    ("placement", cfg.StrOpt("allocation_candidates_generation_strategy", default="depth-first",
                             choices=("depth-first", "breadth-first")),
     "PLACEMENT_ALLOCATION_CANDIDATES_GENERATION_STRATEGY",
     "PLACEMENT_ALLOCATION_CANDIDATES_GENERATION_STRATEGY"),
    # Not upstream's: bounds on the work one request may ask for.
    ("placement", cfg.IntOpt("candidate_work_limit", default=100000, min=-1),
     "PLACEMENT_CANDIDATE_WORK_LIMIT", "PLACEMENT_CANDIDATE_WORK_LIMIT"),
    ("placement", cfg.IntOpt("max_consumers_per_request", default=1000, min=1),
     "PLACEMENT_MAX_CONSUMERS_PER_REQUEST", "PLACEMENT_MAX_CONSUMERS_PER_REQUEST"),
    ("placement", cfg.IntOpt("max_aggregates_per_request", default=1000, min=1),
     "PLACEMENT_MAX_AGGREGATES_PER_REQUEST", "PLACEMENT_MAX_AGGREGATES_PER_REQUEST"),
    ("placement", cfg.IntOpt("allocation_conflict_retry_count", default=10, min=0),
     "PLACEMENT_ALLOCATION_CONFLICT_RETRY_COUNT", "PLACEMENT_ALLOCATION_CONFLICT_RETRY_COUNT"),
    ("placement", cfg.StrOpt("incomplete_consumer_project_id", default=ZERO_UUID),
     "PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID", "PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID"),
    ("placement", cfg.StrOpt("incomplete_consumer_user_id", default=ZERO_UUID),
     "PLACEMENT_INCOMPLETE_CONSUMER_USER_ID", "PLACEMENT_INCOMPLETE_CONSUMER_USER_ID"),
    ("oslo_policy", cfg.BoolOpt("enforce_new_defaults", default=True),
     "PLACEMENT_ENFORCE_NEW_DEFAULTS", "PLACEMENT_ENFORCE_NEW_DEFAULTS"),
    ("oslo_policy", cfg.BoolOpt("enforce_scope", default=True),
     "PLACEMENT_ENFORCE_SCOPE", "PLACEMENT_ENFORCE_SCOPE"),
    ("oslo_policy", cfg.StrOpt("policy_file"), "PLACEMENT_POLICY_FILE", "PLACEMENT_POLICY_FILE"),
    # --- Deployment from the package (state, logging, proxies, CORS) ------
    # Where an installed copy writes (placement_core/state.py).
    ("placement", cfg.StrOpt("state_path"), "PLACEMENT_STATE_PATH", "PLACEMENT_STATE_PATH"),
    ("placement", cfg.StrOpt("static_root"), "PLACEMENT_STATIC_ROOT", "PLACEMENT_STATIC_ROOT"),
    # oslo.middleware's own [cors] and [oslo_middleware] options, read by
    # its middleware (placement_site/httpstack.py); PLACEMENT_* spellings too.
    *[("cors", _middleware_opt(cors.OPTS, name), variable, variable) for name, variable in (
        ("allowed_origin", "PLACEMENT_CORS_ALLOWED_ORIGINS"),
        ("allow_headers", "PLACEMENT_CORS_ALLOW_HEADERS"),
        ("allow_methods", "PLACEMENT_CORS_ALLOW_METHODS"),
        ("expose_headers", "PLACEMENT_CORS_EXPOSE_HEADERS"),
        ("max_age", "PLACEMENT_CORS_MAX_AGE"),
        ("allow_credentials", "PLACEMENT_CORS_ALLOW_CREDENTIALS"),
    )],
    ("oslo_middleware", _middleware_opt(http_proxy_to_wsgi.OPTS, "enable_proxy_headers_parsing"),
     "PLACEMENT_ENABLE_PROXY_HEADERS_PARSING", "PLACEMENT_ENABLE_PROXY_HEADERS_PARSING"),
    *[("placement_database", opt, variable, name) for opt, variable, name in (
        # Upstream's connection options, mapped onto Django and the drivers
        # by placement_core.database (docs/databases.md "Database connections").
        (cfg.IntOpt("max_pool_size", min=1), None, "DB_MAX_POOL_SIZE"),
        (cfg.IntOpt("max_overflow", default=50, min=0), None, "DB_MAX_OVERFLOW"),
        (cfg.IntOpt("pool_timeout", default=10, min=1), None, "DB_POOL_TIMEOUT"),
        (cfg.IntOpt("connection_recycle_time", default=60, min=0),
         "PLACEMENT_DB_CONN_MAX_AGE", "PLACEMENT_DB_CONN_MAX_AGE"),
        (cfg.StrOpt("connection_parameters", default=""), None, "DB_CONNECTION_PARAMETERS"),
        (cfg.StrOpt("mysql_sql_mode"), None, "DB_MYSQL_SQL_MODE"),
        # Not upstream's: no request waits for a silent database until the
        # worker is killed (gunicorn's timeout, 30 s).
        (cfg.IntOpt("connect_timeout", default=5, min=2),
         "PLACEMENT_DB_CONNECT_TIMEOUT", "PLACEMENT_DB_CONNECT_TIMEOUT"),
        (cfg.IntOpt("statement_timeout", default=10, min=0),
         "PLACEMENT_DB_STATEMENT_TIMEOUT", "PLACEMENT_DB_STATEMENT_TIMEOUT"),
        # Reads from a streaming replica (placement_core.replica).
        (cfg.StrOpt("slave_connection", secret=True),
         "PLACEMENT_DB_REPLICA_URL", "DATABASE_REPLICA_CONNECTION"),
        (cfg.FloatOpt("replica_max_lag", default=0.0, min=0),
         "PLACEMENT_DB_REPLICA_MAX_LAG", "PLACEMENT_DB_REPLICA_MAX_LAG"),
    )],
]

# Settings that only have a PLACEMENT_* spelling: (variable, option, settings name).
PLACEMENT_ONLY = [
    ("PLACEMENT_DEBUG", cfg.BoolOpt("debug", default=False), "DEBUG"),
    # Seconds one read from (or write to) a client may wait under gunicorn
    # (placement_site/wsgi.py): a body promised and not sent frees its thread.
    ("PLACEMENT_CLIENT_TIMEOUT", cfg.IntOpt("client_timeout", default=10, min=1),
     "PLACEMENT_CLIENT_TIMEOUT"),
    ("PLACEMENT_DB_STARTUP_WAIT", cfg.IntOpt("db_startup_wait", default=30, min=0),
     "PLACEMENT_DB_STARTUP_WAIT"),
    ("PLACEMENT_LOG_LEVEL", cfg.StrOpt(
        "log_level", default="INFO", ignore_case=True,
        choices=("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")), "PLACEMENT_LOG_LEVEL"),
    ("PLACEMENT_SECURE_PROXY_SSL_HEADER", cfg.BoolOpt("secure_proxy_ssl_header", default=False),
     "PLACEMENT_SECURE_PROXY_SSL_HEADER"),
    ("PLACEMENT_SECURE_COOKIES", cfg.BoolOpt("secure_cookies", default=False),
     "PLACEMENT_SECURE_COOKIES"),
    ("PLACEMENT_CLICKJACKING_PROTECTION", cfg.BoolOpt("clickjacking", default=True),
     "PLACEMENT_CLICKJACKING_PROTECTION"),
    ("PLACEMENT_SSL_REDIRECT", cfg.BoolOpt("ssl_redirect", default=False),
     "PLACEMENT_SSL_REDIRECT"),
    ("PLACEMENT_HSTS_SECONDS", cfg.IntOpt("hsts_seconds", default=0, min=0),
     "PLACEMENT_HSTS_SECONDS"),
    ("PLACEMENT_HSTS_INCLUDE_SUBDOMAINS", cfg.BoolOpt("hsts_subdomains", default=False),
     "PLACEMENT_HSTS_INCLUDE_SUBDOMAINS"),
    ("PLACEMENT_HSTS_PRELOAD", cfg.BoolOpt("hsts_preload", default=False),
     "PLACEMENT_HSTS_PRELOAD"),
    ("PLACEMENT_ALLOW_DEVELOPMENT_SECRET_KEY", cfg.BoolOpt("allow_dev_key", default=False),
     "PLACEMENT_ALLOW_DEVELOPMENT_SECRET_KEY"),
    ("PLACEMENT_REQUEST_LOG_LEVEL", cfg.StrOpt(
        "request_log_level", default="INFO", ignore_case=True,
        choices=("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")), "PLACEMENT_REQUEST_LOG_LEVEL"),
    # Console and admin log-in throttling (console/throttle.py).
    ("PLACEMENT_LOGIN_FAILURE_LIMIT", cfg.IntOpt("login_failure_limit", default=5, min=1),
     "PLACEMENT_LOGIN_FAILURE_LIMIT"),
    ("PLACEMENT_LOGIN_LOCKOUT_SECONDS", cfg.IntOpt("login_lockout_seconds", default=900, min=1),
     "PLACEMENT_LOGIN_LOCKOUT_SECONDS"),
    ("PLACEMENT_LOGIN_ADDRESS_FAILURE_LIMIT",
     cfg.IntOpt("login_address_failure_limit", default=20, min=1),
     "PLACEMENT_LOGIN_ADDRESS_FAILURE_LIMIT"),
    # The header a trusted proxy puts the client's address in (its last
    # entry is read); empty: the connection's address.
    ("PLACEMENT_LOGIN_CLIENT_ADDRESS_HEADER",
     cfg.StrOpt("login_client_address_header", default="",
                regex=r"^([A-Za-z0-9][A-Za-z0-9-]*)?$",
                help="an HTTP header name such as X-Forwarded-For (letters, digits, '-')"),
     "PLACEMENT_LOGIN_CLIENT_ADDRESS_HEADER"),
    # The console's headroom: named request shapes, "NAME=CLASS:N,...; ...".
    ("PLACEMENT_FLAVORS", cfg.StrOpt("flavors", default=""), "PLACEMENT_FLAVORS"),
    # Benchmarks: each API answer carries its database time (X-Placement-DB-Time).
    ("PLACEMENT_TIMING_HEADERS", cfg.BoolOpt("timing_headers", default=False),
     "PLACEMENT_TIMING_HEADERS"),
    # Observability: allocation history, /metrics, usage snapshots.
    ("PLACEMENT_ALLOCATION_HISTORY", cfg.BoolOpt("allocation_history", default=True),
     "PLACEMENT_ALLOCATION_HISTORY"),
    ("PLACEMENT_ALLOCATION_HISTORY_RETENTION_DAYS",
     cfg.IntOpt("allocation_history_retention_days", default=90, min=0, max=36500),
     "PLACEMENT_ALLOCATION_HISTORY_RETENTION_DAYS"),
    ("PLACEMENT_METRICS_CACHE_SECONDS", cfg.IntOpt("metrics_cache_seconds", default=30, min=0),
     "PLACEMENT_METRICS_CACHE_SECONDS"),
    ("PLACEMENT_USAGE_SNAPSHOT_INTERVAL_SECONDS",
     cfg.IntOpt("usage_snapshot_interval_seconds", default=300, min=0),
     "PLACEMENT_USAGE_SNAPSHOT_INTERVAL_SECONDS"),
    ("PLACEMENT_USAGE_SNAPSHOT_RETENTION_DAYS",
     cfg.IntOpt("usage_snapshot_retention_days", default=30, min=0, max=36500),
     "PLACEMENT_USAGE_SNAPSHOT_RETENTION_DAYS"),
    # Capacity planning (the planning app): the usage forecast...
    ("PLACEMENT_FORECAST_WINDOW_DAYS", cfg.IntOpt("forecast_window_days", default=14, min=1),
     "PLACEMENT_FORECAST_WINDOW_DAYS"),
    ("PLACEMENT_FORECAST_THRESHOLD_PERCENT",
     cfg.IntOpt("forecast_threshold_percent", default=85, min=1, max=100),
     "PLACEMENT_FORECAST_THRESHOLD_PERCENT"),
    # ... and the capture of scheduling failures.
    ("PLACEMENT_FAILURE_CAPTURE", cfg.BoolOpt("failure_capture", default=True),
     "PLACEMENT_FAILURE_CAPTURE"),
    ("PLACEMENT_FAILURE_RETENTION_DAYS", cfg.IntOpt("failure_retention_days", default=14, min=0),
     "PLACEMENT_FAILURE_RETENTION_DAYS"),
    ("PLACEMENT_FAILURE_MAX_RECORDS", cfg.IntOpt("failure_max_records", default=10000, min=1),
     "PLACEMENT_FAILURE_MAX_RECORDS"),
    ("PLACEMENT_FAILURE_EXPLAIN_PER_MINUTE",
     cfg.IntOpt("failure_explain_per_minute", default=10, min=0),
     "PLACEMENT_FAILURE_EXPLAIN_PER_MINUTE"),
    ("PLACEMENT_FAILURE_QUERY_MAX_CHARS",
     cfg.IntOpt("failure_query_max_chars", default=2048, min=64, max=65536),
     "PLACEMENT_FAILURE_QUERY_MAX_CHARS"),
    # Django's web settings (placement_site/settings.py).
    ("PLACEMENT_SECRET_KEY", cfg.StrOpt("secret_key", default="", secret=True),
     "PLACEMENT_SECRET_KEY"),
    ("PLACEMENT_ALLOWED_HOSTS", cfg.ListOpt("allowed_hosts", default=[]),
     "PLACEMENT_ALLOWED_HOSTS"),
    ("PLACEMENT_CSRF_TRUSTED_ORIGINS", cfg.ListOpt("csrf_trusted_origins", default=[]),
     "PLACEMENT_CSRF_TRUSTED_ORIGINS"),
    # MariaDB Galera: the session's wsrep_sync_wait bit mask (read-your-writes
    # across nodes; placement_core.database).
    ("PLACEMENT_DB_SYNC_WAIT", cfg.IntOpt("db_sync_wait", min=0, max=15),
     "PLACEMENT_DB_SYNC_WAIT"),
    # prometheus_client's own variable: /metrics sums the workers' files there.
    ("PROMETHEUS_MULTIPROC_DIR", cfg.StrOpt("prometheus_multiproc_dir", default=""),
     "PROMETHEUS_MULTIPROC_DIR"),
]

# Variables read as they are, by prefix: keystonemiddleware's settings
# (placement_site/keystone.py) and its OS_KEYSTONE_AUTHTOKEN__* overrides.
KEYSTONE_PREFIXES = ("PLACEMENT_KEYSTONE_", "OS_KEYSTONE_AUTHTOKEN__")
# The default state directory is under these (placement_core.state).
HOME_VARIABLES = ("XDG_STATE_HOME", "HOME")


class ConfigError(ValueError):
    """A setting has a value its option does not accept."""


def accepted(opt):
    """Words for what an option accepts, for the error line."""
    if isinstance(opt, cfg.BoolOpt):
        return "true or false (also 1/0, yes/no, on/off)"
    if isinstance(opt, cfg.IntOpt):
        low, high = opt.type.min, opt.type.max
        if low is not None and high is not None:
            return f"an integer from {low} to {high}"
        return "an integer" + (f" >= {low}" if low is not None else "")
    if isinstance(opt, cfg.FloatOpt):
        low = opt.type.min
        return "a number" + (f" >= {low:g}" if low is not None else "")
    if getattr(opt.type, "regex", None) is not None and opt.help:
        return opt.help
    choices = getattr(opt.type, "choices", None)
    if choices:
        return "one of " + ", ".join(str(c) for c in choices)
    return "a string"


def parse(opt, value, name):
    """Parse a raw string with the option's own type, or raise ConfigError."""
    try:
        result = opt.type(value.strip() if isinstance(value, str) else value)
    except (ValueError, TypeError):
        raise ConfigError(f"invalid value {value!r} for {name}: expected {accepted(opt)}")
    if isinstance(opt, cfg.StrOpt) and opt.type.ignore_case:
        result = result.upper()
    return result


def config_files(environ):
    """The placement.conf files to read (missing default file: none)."""
    named = environ.get("PLACEMENT_CONFIG_FILES")
    if named:
        files = [f for f in named.split(os.pathsep) if f]
        for path in files:
            if not os.path.isfile(path):
                raise ConfigError(f"configuration file {path} does not exist")
        return files
    config_dir = environ.get("OS_PLACEMENT_CONFIG_DIR") or "/etc/placement"
    path = os.path.join(config_dir, "placement.conf")
    return [path] if os.path.isfile(path) else []


def build_conf(files, use_env):
    """A ConfigOpts with upstream's options registered, files parsed.

    With ``use_env`` oslo.config also honours ``OS_<GROUP>__<OPTION>`` for
    options registered later (keystonemiddleware's ``[keystone_authtoken]``);
    load() reads the variables of its own options from the environ it is given.
    """
    conf = cfg.ConfigOpts()
    for group, opt, _variable, _name in OPTIONS:
        conf.register_opt(opt, group=None if group == "DEFAULT" else group)
    # [DEFAULT] debug, log_file, log_dir, use_json, ... (placement_site/logsetup.py).
    oslo_log.register_options(conf)
    try:
        conf(args=[], project="placement", default_config_files=files,
             default_config_dirs=[], validate_default_values=True,
             use_env=use_env)
    except cfg.Error as exc:
        raise ConfigError(f"cannot read configuration: {exc}".splitlines()[0])
    return conf


def load(environ=None):
    """Return ``(values, conf)``: settings names to checked values, and the
    oslo ConfigOpts (for keystonemiddleware's ``[keystone_authtoken]``).
    Raise ConfigError on the first bad value."""
    environ = os.environ if environ is None else environ
    files = config_files(environ)
    conf = build_conf(files, use_env=environ is os.environ)
    values = {}
    for group, opt, variable, name in OPTIONS:
        raw = environ.get(variable) if variable else None
        spelling = variable
        if raw is None or raw.strip() == "":
            spelling = f"OS_{group.upper()}__{opt.dest.upper()}"
            raw = environ.get(spelling)
        if raw is not None and (raw.strip() != "" or spelling != variable):
            values[name] = parse(opt, raw, spelling)
            # What oslo.config's readers (oslo.middleware) see too.
            conf.set_override(opt.dest, values[name], None if group == "DEFAULT" else group)
            continue
        try:
            values[name] = getattr(conf if group == "DEFAULT" else getattr(conf, group), opt.dest)
        except (ValueError, cfg.Error) as exc:
            raise ConfigError(
                f"invalid value for [{group}] {opt.dest}: "
                f"expected {accepted(opt)}"
            ) from exc
    check_logging_options(conf)
    for variable, opt, name in PLACEMENT_ONLY:
        raw = environ.get(variable)
        if raw is None or raw.strip() == "":
            values[name] = opt.default
        else:
            values[name] = parse(opt, raw, variable)
    from placement_core.querystring import parse_flavors

    try:
        values["PLACEMENT_FLAVORS"] = parse_flavors(values["PLACEMENT_FLAVORS"])
    except ValueError as exc:
        raise ConfigError(f"invalid value for PLACEMENT_FLAVORS: {exc}") from None
    check_database_options(values)
    # DATABASE_URL wins over [placement_database] connection (and its
    # OS_PLACEMENT_DATABASE__CONNECTION override).
    # An empty [cors] list means the standard one, for oslo.middleware too.
    for option, name, standard in (
            ("allow_headers", "PLACEMENT_CORS_ALLOW_HEADERS", CORS_HEADERS),
            ("expose_headers", "PLACEMENT_CORS_EXPOSE_HEADERS", CORS_HEADERS),
            ("allow_methods", "PLACEMENT_CORS_ALLOW_METHODS", CORS_METHODS)):
        if not values[name]:
            values[name] = list(standard)
            conf.set_override(option, values[name], "cors")
    values["DATABASE_URL"] = environ.get("DATABASE_URL") or values["DATABASE_CONNECTION"]
    values["KEYSTONE_ENVIRON"] = {name: value for name, value in environ.items()
                                  if name.startswith(KEYSTONE_PREFIXES)}
    values["HOME_ENVIRON"] = {name: environ[name] for name in HOME_VARIABLES if name in environ}
    values["CONFIG_FILES"] = files
    return values, conf


def check_logging_options(conf):
    """oslo.log's [DEFAULT] options (all of that group) read once, so that a
    bad value stops start-up here, with one line, rather than inside oslo.log."""
    for name in conf:  # the groups' names too, which never fail
        try:
            getattr(conf, name)
        except (ValueError, cfg.Error) as exc:
            reason = str(exc).splitlines()[0].rpartition("is not valid: ")[2]
            raise ConfigError(f"invalid value for [DEFAULT] {name}: {reason}") from None


# Comma-separated SQL mode names and nothing else: the value is written into
# the session's init command.
_SQL_MODE = re.compile(r"^[A-Za-z_]+(,[A-Za-z_]+)*$")


def check_database_options(values):
    """What the option types alone do not check of [placement_database]."""
    mode = values["DB_MYSQL_SQL_MODE"]
    if mode is not None and mode.strip() and not _SQL_MODE.match(mode.strip()):
        raise ConfigError(f"invalid value {mode!r} for [placement_database] mysql_sql_mode: "
                          "expected comma-separated SQL mode names (e.g. TRADITIONAL)")
    params = values["DB_CONNECTION_PARAMETERS"].strip()
    if params:
        try:
            parse_qsl(params, keep_blank_values=True, strict_parsing=True)
        except ValueError:
            raise ConfigError(
                f"invalid value {params!r} for [placement_database] connection_parameters: "
                "expected name=value pairs joined by & (e.g. sslmode=require&application_name=x)"
            ) from None
