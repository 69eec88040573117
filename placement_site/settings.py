"""Settings for the placement service.

Everything an operator sets comes from environment variables; the names are
a contract with deployments and with the conformance runner, which sets them
for every server it starts (conformance/targets.py).
"""
import os
from pathlib import Path

from placement_core import state
from placement_site import config, logsetup
from placement_core.database import (
    DEFAULT_MYSQL_SQL_MODE, Limits, database_settings, replica_settings, serving,
)

BASE_DIR = Path(__file__).resolve().parent.parent


# Every operator setting, checked: a bad value stops start-up (and every
# manage.py command) with one line naming the setting and what it accepts.
try:
    _CONFIG, PLACEMENT_OSLO_CONF = config.load()
    LOGGING = logsetup.build(_CONFIG)
except config.ConfigError as exc:
    raise SystemExit(f"placement: {exc}")
LOGGING_CONFIG = "placement_site.logsetup.configure"

# Where this copy writes (placement_core/state.py): never inside the package.
PLACEMENT_STATE_PATH = state.state_path(_CONFIG["PLACEMENT_STATE_PATH"], BASE_DIR,
                                        _CONFIG["HOME_ENVIRON"])

# The key that signs console and admin sessions: PLACEMENT_SECRET_KEY or
# [console] secret_key; else, in a source checkout, the development key; else
# a random key made once per install and kept in the state directory
# (placement_core.state.install_secret_key).
DEVELOPMENT_SECRET_KEY = "placement-insecure-development-key-change-me"
DEBUG = _CONFIG["DEBUG"]
# /console/ and /admin/ on the API port: off unless [console] enabled
# (PLACEMENT_CONSOLE); placement_site.surface answers 404 for them.
PLACEMENT_CONSOLE_ENABLED = _CONFIG["PLACEMENT_CONSOLE_ENABLED"]
if _CONFIG["PLACEMENT_SECRET_KEY"]:
    SECRET_KEY = _CONFIG["PLACEMENT_SECRET_KEY"]
elif state.in_checkout(BASE_DIR):
    SECRET_KEY = DEVELOPMENT_SECRET_KEY
else:
    try:
        SECRET_KEY = state.install_secret_key(PLACEMENT_STATE_PATH)
    except ValueError as exc:
        if PLACEMENT_CONSOLE_ENABLED:
            raise SystemExit(f"placement: {exc}; set [console] secret_key in placement.conf")
        # Nothing of the API is signed: without the console a key of this
        # process alone is enough.
        SECRET_KEY = state.random_secret_key()
_HOSTS = [host for host in _CONFIG["PLACEMENT_ALLOWED_HOSTS"] if host]
ALLOWED_HOSTS = _HOSTS or ["*"]

# An operator who names the service's hosts is deploying it for real: the
# console's sessions must not be signed with a key everyone can read.  The
# development tools (make run, tests, conformance) set no hosts and start.
if (
    SECRET_KEY == DEVELOPMENT_SECRET_KEY
    and not DEBUG
    and _HOSTS
    and not _CONFIG["PLACEMENT_ALLOW_DEVELOPMENT_SECRET_KEY"]
):
    raise SystemExit(
        "placement: PLACEMENT_SECRET_KEY is not set (the development key would sign console "
        "sessions); set it, or PLACEMENT_ALLOW_DEVELOPMENT_SECRET_KEY=true to accept the risk"
    )

# Behind a TLS-terminating proxy (docs/install.md "TLS and secrets").
CSRF_TRUSTED_ORIGINS = [origin for origin in _CONFIG["PLACEMENT_CSRF_TRUSTED_ORIGINS"] if origin]
if _CONFIG["PLACEMENT_SECURE_PROXY_SSL_HEADER"]:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = _CONFIG["PLACEMENT_SECURE_COOKIES"]
SECURE_SSL_REDIRECT = _CONFIG["PLACEMENT_SSL_REDIRECT"]
SECURE_HSTS_SECONDS = _CONFIG["PLACEMENT_HSTS_SECONDS"]
SECURE_HSTS_INCLUDE_SUBDOMAINS = _CONFIG["PLACEMENT_HSTS_INCLUDE_SUBDOMAINS"]
SECURE_HSTS_PRELOAD = _CONFIG["PLACEMENT_HSTS_PRELOAD"]
X_FRAME_OPTIONS = "DENY"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_filters",
    # The project's apps in dependency order: each may import the ones above it.
    "placement_core",  # the shared kernel: HTTP edge, API and admin helpers; policy_show
    "resource_classes",
    "providers",
    "allocations",  # claims and consumers
    "candidates",  # the allocation-candidate engine and explain: no models
    "operations",  # allocation history, usage snapshots, the audit (beside candidates)
    "planning",  # headroom and flavors, drain what-if, forecast, failures, capacity metrics
    "reshaper",
    "console",
    "maintenance",  # the manage.py maintenance commands
]

MIDDLEWARE = [
    # /console/ and /admin/ are 404 unless the console is enabled.
    "placement_site.surface.ConsoleSurfaceMiddleware",
    # The Placement HTTP edge: request ids, auth, microversions, error
    # format, cache headers.  It only acts on API paths (not /admin/,
    # /console/, /static/, /api/).
    "placement_core.edge.PlacementEdgeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files (WhiteNoise), before sessions and auth: no database work.
    "placement_site.staticfiles.PlacementStaticMiddleware",
    # Sessions, log-in and messages are for the site's pages only: API
    # requests pass them by (placement_site/site_middleware.py). CSRF stays
    # Django's own, as `check --deploy` wants it (API views are exempt).
    "placement_site.site_middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "placement_site.site_middleware.AuthenticationMiddleware",
    "placement_site.site_middleware.MessageMiddleware",
    # /admin/ only: NUL characters, 100 KB searches and ids that are not ids
    # are refused with a 400 page before Django's views read them.
    "placement_core.admin.AdminInputMiddleware",
]
if _CONFIG["PLACEMENT_CLICKJACKING_PROTECTION"]:
    MIDDLEWARE.append("django.middleware.clickjacking.XFrameOptionsMiddleware")

# Placement URLs never get a trailing slash appended.
APPEND_SLASH = False

ROOT_URLCONF = "placement_site.urls"
WSGI_APPLICATION = "placement_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # The site's own pages (base.html, 404.html, 500.html) are the
        # checkout's top-level templates/; placement_site/templates is a link
        # to it, which the wheel carries as package data (a real directory in
        # an installed copy). Apps' pages stay in the apps.
        "DIRS": [Path(__file__).resolve().parent / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# DATABASE_URL, else [placement_database] connection (config.py).
DATABASE_URL = _CONFIG["DATABASE_URL"]
if not DATABASE_URL:
    # No database configured: SQLite in the state directory.
    try:
        state.ensure_directory(PLACEMENT_STATE_PATH, "state directory ([placement] state_path)")
    except ValueError as exc:
        raise SystemExit(f"placement: {exc}")
    DATABASE_URL = f"sqlite:///{PLACEMENT_STATE_PATH / state.SQLITE_NAME}"
# [placement_database] pool, session and timeout options (docs/databases.md "Database
# connections"); the statement timeout bounds the API server only.
PLACEMENT_DB_STATEMENT_TIMEOUT = _CONFIG["PLACEMENT_DB_STATEMENT_TIMEOUT"] if serving() else 0
_limits = Limits(
    connect_timeout=_CONFIG["PLACEMENT_DB_CONNECT_TIMEOUT"],
    statement_timeout=PLACEMENT_DB_STATEMENT_TIMEOUT,
    max_pool_size=_CONFIG["DB_MAX_POOL_SIZE"],
    max_overflow=_CONFIG["DB_MAX_OVERFLOW"],
    pool_timeout=_CONFIG["DB_POOL_TIMEOUT"],
    connection_parameters=_CONFIG["DB_CONNECTION_PARAMETERS"].strip(),
    mysql_sql_mode=(DEFAULT_MYSQL_SQL_MODE if _CONFIG["DB_MYSQL_SQL_MODE"] is None
                    else _CONFIG["DB_MYSQL_SQL_MODE"].strip()),
)
try:
    _db = database_settings(DATABASE_URL, conn_max_age=_CONFIG["PLACEMENT_DB_CONN_MAX_AGE"],
                            sync_wait=_CONFIG["PLACEMENT_DB_SYNC_WAIT"], limits=_limits)
except ValueError as exc:
    raise SystemExit(f"placement: {exc}")
DATABASES = {"default": _db}
# Bulk reads from a streaming replica when one is configured (placement_core/replica.py).
PLACEMENT_DB_REPLICA_MAX_LAG = _CONFIG["PLACEMENT_DB_REPLICA_MAX_LAG"]
if _CONFIG["DATABASE_REPLICA_CONNECTION"]:
    try:
        DATABASES["replica"] = replica_settings(
            _CONFIG["DATABASE_REPLICA_CONNECTION"], primary=_db,
            conn_max_age=_CONFIG["PLACEMENT_DB_CONN_MAX_AGE"], limits=_limits)
    except ValueError as exc:
        raise SystemExit(f"placement: [placement_database] slave_connection: {exc}")
    DATABASE_ROUTERS = ["placement_core.replica.ReplicaRouter"]
# How long a starting server waits for an unreachable database before it
# exits non-zero (placement_core.database.wait_for_database).
PLACEMENT_DB_STARTUP_WAIT = _CONFIG["PLACEMENT_DB_STARTUP_WAIT"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
# WhiteNoise serves the files from the installed apps as they are; after
# `collectstatic` (optional) compressed copies (gzip, brotli when installed)
# from STATIC_ROOT: [placement] static_root, default <state_path>/static.
STATIC_ROOT = Path(os.path.abspath(os.path.expanduser(
    _CONFIG["PLACEMENT_STATIC_ROOT"] or PLACEMENT_STATE_PATH / "static")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_MAX_AGE = 3600

# LOGGING: oslo.log's [DEFAULT] options (debug, log_file, log_dir, use_json,
# use_journal, use_syslog, log_config_append, ...) from PLACEMENT_OSLO_CONF,
# PLACEMENT_LOG_LEVEL and PLACEMENT_REQUEST_LOG_LEVEL (placement_site/logsetup.py).

REST_FRAMEWORK = {
    # Authentication and policy are done by the placement edge and by
    # placement_core.policy, not by DRF.
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_PARSER_CLASSES": [],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "placement_core.negotiation.IgnoreAcceptNegotiation",
    "EXCEPTION_HANDLER": "placement_core.api.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Placement API",
    "DESCRIPTION": "A wire-compatible implementation of the OpenStack Placement API "
    "(microversions 1.0 to 1.39). Send `OpenStack-API-Version: placement X.Y`.",
    "VERSION": "1.39",
    # 3.1: request and response bodies are described by the same JSON
    # Schemas the API validates with (null types, patternProperties), which
    # OpenAPI 3.1 accepts as they are.
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from the drf-spectacular-sidecar package (no CDN).
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "placement_core.openapi.postprocess",
    ],
}

# --- Placement configuration (DESIGN.md section 5) -------------------------
# Each from PLACEMENT_*, else OS_<GROUP>__<OPTION>, else placement.conf
# (placement_site/config.py; docs/configuration.md).
PLACEMENT_AUTH_STRATEGY = _CONFIG["PLACEMENT_AUTH_STRATEGY"]
PLACEMENT_ENFORCE_NEW_DEFAULTS = _CONFIG["PLACEMENT_ENFORCE_NEW_DEFAULTS"]
PLACEMENT_ENFORCE_SCOPE = _CONFIG["PLACEMENT_ENFORCE_SCOPE"]
PLACEMENT_POLICY_FILE = _CONFIG["PLACEMENT_POLICY_FILE"]
PLACEMENT_POLICY_DIRS = _CONFIG["PLACEMENT_POLICY_DIRS"]
# [cors], [oslo_middleware] and [healthcheck] are read by oslo.middleware
# itself from PLACEMENT_OSLO_CONF (placement_site/httpstack.py, wsgi.py).
PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES = _CONFIG["PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES"]
PLACEMENT_MAX_ALLOCATION_CANDIDATES = _CONFIG["PLACEMENT_MAX_ALLOCATION_CANDIDATES"]
PLACEMENT_ALLOCATION_CANDIDATES_GENERATION_STRATEGY = _CONFIG["PLACEMENT_ALLOCATION_CANDIDATES_GENERATION_STRATEGY"]
PLACEMENT_ALLOCATION_CONFLICT_RETRY_COUNT = _CONFIG["PLACEMENT_ALLOCATION_CONFLICT_RETRY_COUNT"]
# Bounds on one request's work: provider choices combined by one candidates
# request (-1: none), consumers named by one POST /allocations.
PLACEMENT_CANDIDATE_WORK_LIMIT = _CONFIG["PLACEMENT_CANDIDATE_WORK_LIMIT"]
PLACEMENT_MAX_CONSUMERS_PER_REQUEST = _CONFIG["PLACEMENT_MAX_CONSUMERS_PER_REQUEST"]
PLACEMENT_MAX_AGGREGATES_PER_REQUEST = _CONFIG["PLACEMENT_MAX_AGGREGATES_PER_REQUEST"]
PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID = _CONFIG["PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID"]
PLACEMENT_INCOMPLETE_CONSUMER_USER_ID = _CONFIG["PLACEMENT_INCOMPLETE_CONSUMER_USER_ID"]
PLACEMENT_CONFIG_FILES = _CONFIG["CONFIG_FILES"]
PLACEMENT_CONFIG_DIRS = _CONFIG["CONFIG_DIRS"]
# keystonemiddleware's PLACEMENT_KEYSTONE_* / OS_KEYSTONE_AUTHTOKEN__* (placement_site/keystone.py).
PLACEMENT_KEYSTONE_ENVIRON = _CONFIG["KEYSTONE_ENVIRON"]
# /metrics sums the gunicorn workers' figures from files here (placement_core/metrics.py).
PROMETHEUS_MULTIPROC_DIR = _CONFIG["PROMETHEUS_MULTIPROC_DIR"]
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024 * 1024


# Failed console/admin log-ins allowed per user name and per address within
# the lockout window (console/throttle.py).
PLACEMENT_CLIENT_TIMEOUT = _CONFIG["PLACEMENT_CLIENT_TIMEOUT"]
PLACEMENT_LOGIN_FAILURE_LIMIT = _CONFIG["PLACEMENT_LOGIN_FAILURE_LIMIT"]
PLACEMENT_LOGIN_LOCKOUT_SECONDS = _CONFIG["PLACEMENT_LOGIN_LOCKOUT_SECONDS"]
PLACEMENT_LOGIN_ADDRESS_FAILURE_LIMIT = _CONFIG["PLACEMENT_LOGIN_ADDRESS_FAILURE_LIMIT"]
PLACEMENT_LOGIN_CLIENT_ADDRESS_HEADER = _CONFIG["PLACEMENT_LOGIN_CLIENT_ADDRESS_HEADER"]


# Named request shapes whose headroom the console and /metrics report
# (planning/headroom.py): a list of placement_core.querystring.Flavor.
PLACEMENT_FLAVORS = _CONFIG["PLACEMENT_FLAVORS"]

# Benchmarks (make bench): X-Placement-DB-Time / -DB-Queries on API answers.
PLACEMENT_TIMING_HEADERS = _CONFIG["PLACEMENT_TIMING_HEADERS"]


# --- Observability (health, allocation history, metrics, usage snapshots) --
# Record every allocation change (allocations.changes; read by operations.history).
PLACEMENT_ALLOCATION_HISTORY = _CONFIG["PLACEMENT_ALLOCATION_HISTORY"]
# prune_allocation_history drops records older than this many days; 0 keeps all.
PLACEMENT_ALLOCATION_HISTORY_RETENTION_DAYS = _CONFIG["PLACEMENT_ALLOCATION_HISTORY_RETENTION_DAYS"]
# /metrics keeps its capacity figures this many seconds per process.
PLACEMENT_METRICS_CACHE_SECONDS = _CONFIG["PLACEMENT_METRICS_CACHE_SECONDS"]
# take_usage_snapshot: skip a run sooner than this after the last one (0: never skip).
PLACEMENT_USAGE_SNAPSHOT_INTERVAL_SECONDS = _CONFIG["PLACEMENT_USAGE_SNAPSHOT_INTERVAL_SECONDS"]
# take_usage_snapshot drops snapshots older than this many days; 0 keeps all.
PLACEMENT_USAGE_SNAPSHOT_RETENTION_DAYS = _CONFIG["PLACEMENT_USAGE_SNAPSHOT_RETENTION_DAYS"]


# --- Capacity planning (planning/) -------------------------------------------
# The forecast fits a line to this many days of usage snapshots...
PLACEMENT_FORECAST_WINDOW_DAYS = _CONFIG["PLACEMENT_FORECAST_WINDOW_DAYS"]
# ... and says when usage reaches capacity and this percentage of it.
PLACEMENT_FORECAST_THRESHOLD_PERCENT = _CONFIG["PLACEMENT_FORECAST_THRESHOLD_PERCENT"]
# Record GET /allocation_candidates answers without candidates and claims
# refused for capacity (planning.failures).
PLACEMENT_FAILURE_CAPTURE = _CONFIG["PLACEMENT_FAILURE_CAPTURE"]
# Records older than this many days are dropped (0 keeps them by age), and
# never more than this many are kept.
PLACEMENT_FAILURE_RETENTION_DAYS = _CONFIG["PLACEMENT_FAILURE_RETENTION_DAYS"]
PLACEMENT_FAILURE_MAX_RECORDS = _CONFIG["PLACEMENT_FAILURE_MAX_RECORDS"]
# Explanations computed per minute and process; past it a failure is
# recorded without one (0: never explain).
PLACEMENT_FAILURE_EXPLAIN_PER_MINUTE = _CONFIG["PLACEMENT_FAILURE_EXPLAIN_PER_MINUTE"]
# The stored query string is cut to this many characters.
PLACEMENT_FAILURE_QUERY_MAX_CHARS = _CONFIG["PLACEMENT_FAILURE_QUERY_MAX_CHARS"]
