"""Settings for the placement service.

Everything an operator sets comes from environment variables; the names are
a contract with the tools in ../shared (see DESIGN.md section 5).
"""
import os
from pathlib import Path

from placement_site.database import database_settings

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name, default=False):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def env_int(name, default):
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return int(value)


def env_list(name):
    value = os.environ.get(name, "")
    return [item.strip() for item in value.split(",") if item.strip()]


SECRET_KEY = os.environ.get(
    "PLACEMENT_SECRET_KEY", "placement-insecure-development-key-change-me"
)
DEBUG = env_bool("PLACEMENT_DEBUG", False)
ALLOWED_HOSTS = env_list("PLACEMENT_ALLOWED_HOSTS") or ["*"]

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
    "placement_site",  # the HTTP edge, shared API and admin helpers; policy_show
    "resource_classes",
    "providers",
    "allocations",
    "reshaper",
    "console",
    "maintenance",  # the manage.py maintenance commands
]

MIDDLEWARE = [
    # CORS (off unless PLACEMENT_CORS_ALLOWED_ORIGINS is set): preflights are
    # answered before authentication.
    "placement_site.cors.CORSMiddleware",
    # The Placement HTTP edge: request ids, auth, microversions, error
    # format, cache headers.  It only acts on API paths (not /admin/,
    # /console/, /static/, /api/).
    "placement_site.edge.PlacementEdgeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

# Placement URLs never get a trailing slash appended.
APPEND_SLASH = False

ROOT_URLCONF = "placement_site.urls"
WSGI_APPLICATION = "placement_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
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

DATABASE_URL = os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
_db = database_settings(DATABASE_URL, conn_max_age=env_int("PLACEMENT_DB_CONN_MAX_AGE", 60))
DATABASES = {"default": _db}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "static_collected"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("PLACEMENT_LOG_LEVEL", "INFO")},
    "loggers": {"django.request": {"level": "ERROR"}},
}

REST_FRAMEWORK = {
    # Authentication and policy are done by the placement edge and by
    # placement_site.policy, not by DRF.
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_PARSER_CLASSES": [],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "placement_site.negotiation.IgnoreAcceptNegotiation",
    "EXCEPTION_HANDLER": "placement_site.api.exception_handler",
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
}

# --- Placement configuration (DESIGN.md section 5) -------------------------
PLACEMENT_AUTH_STRATEGY = os.environ.get("PLACEMENT_AUTH_STRATEGY", "keystone")
PLACEMENT_ENFORCE_NEW_DEFAULTS = env_bool("PLACEMENT_ENFORCE_NEW_DEFAULTS", True)
PLACEMENT_ENFORCE_SCOPE = env_bool("PLACEMENT_ENFORCE_SCOPE", True)
PLACEMENT_POLICY_FILE = os.environ.get("PLACEMENT_POLICY_FILE") or None
PLACEMENT_CORS_ALLOWED_ORIGINS = env_list("PLACEMENT_CORS_ALLOWED_ORIGINS")
PLACEMENT_CORS_ALLOW_HEADERS = env_list("PLACEMENT_CORS_ALLOW_HEADERS")
PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES = env_bool(
    "PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES", False
)
PLACEMENT_MAX_ALLOCATION_CANDIDATES = env_int("PLACEMENT_MAX_ALLOCATION_CANDIDATES", -1)
PLACEMENT_ALLOCATION_CANDIDATES_GENERATION_STRATEGY = os.environ.get(
    "PLACEMENT_ALLOCATION_CANDIDATES_GENERATION_STRATEGY", "depth-first"
)
PLACEMENT_ALLOCATION_CONFLICT_RETRY_COUNT = env_int(
    "PLACEMENT_ALLOCATION_CONFLICT_RETRY_COUNT", 10
)
PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID = os.environ.get(
    "PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID", "00000000-0000-0000-0000-000000000000"
)
PLACEMENT_INCOMPLETE_CONSUMER_USER_ID = os.environ.get(
    "PLACEMENT_INCOMPLETE_CONSUMER_USER_ID", "00000000-0000-0000-0000-000000000000"
)
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024 * 1024


# --- Observability (health, allocation history, metrics, usage snapshots) --
# Parsed strictly: a value that is not understood stops start-up.
def _observe_bool(name, default):
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"{name}={value!r}: expected true/false (1/0, yes/no, on/off)")


def _observe_int(name, default, minimum=0):
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or number < minimum:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(f"{name}={value!r}: expected an integer >= {minimum}")
    return number


# Record every allocation change (allocations.history).
PLACEMENT_ALLOCATION_HISTORY = _observe_bool("PLACEMENT_ALLOCATION_HISTORY", True)
# prune_allocation_history drops records older than this many days; 0 keeps all.
PLACEMENT_ALLOCATION_HISTORY_RETENTION_DAYS = _observe_int(
    "PLACEMENT_ALLOCATION_HISTORY_RETENTION_DAYS", 90
)
# /metrics keeps its capacity figures this many seconds per process.
PLACEMENT_METRICS_CACHE_SECONDS = _observe_int("PLACEMENT_METRICS_CACHE_SECONDS", 30)
# take_usage_snapshot: skip a run sooner than this after the last one (0: never skip).
PLACEMENT_USAGE_SNAPSHOT_INTERVAL_SECONDS = _observe_int(
    "PLACEMENT_USAGE_SNAPSHOT_INTERVAL_SECONDS", 300
)
# take_usage_snapshot drops snapshots older than this many days; 0 keeps all.
PLACEMENT_USAGE_SNAPSHOT_RETENTION_DAYS = _observe_int(
    "PLACEMENT_USAGE_SNAPSHOT_RETENTION_DAYS", 30
)
