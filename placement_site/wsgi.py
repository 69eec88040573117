"""WSGI entry point: `gunicorn placement_site.wsgi:application`."""
import os

from django.core.wsgi import get_wsgi_application

from placement_core import database as _database

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "placement_site.settings")

# Serving: the settings bound every statement (PLACEMENT_DB_STATEMENT_TIMEOUT).
_database.mark_serving()
application = get_wsgi_application()

# PLACEMENT_AUTH_STRATEGY=keystone: keystonemiddleware's auth_token in front
# (placement_site/keystone.py).  noauth2 serves the Django app as it is.
from django.conf import settings  # noqa: E402

if settings.PLACEMENT_AUTH_STRATEGY == "keystone":
    from placement_site import keystone  # noqa: E402

    application = keystone.wrap(application)
elif settings.PLACEMENT_AUTH_STRATEGY != "noauth2":
    from django.core.exceptions import ImproperlyConfigured  # noqa: E402

    raise ImproperlyConfigured(
        f"PLACEMENT_AUTH_STRATEGY={settings.PLACEMENT_AUTH_STRATEGY!r}: "
        "use 'keystone' or 'noauth2'"
    )

# A client that promises a body and does not send it would hold a worker
# thread for ever: under gunicorn every read from (and write to) the client
# waits at most PLACEMENT_CLIENT_TIMEOUT seconds; a body that does not come
# is then a 400 (Django's UnreadablePostError, placement_core.errors).
_django_application = application


def application(environ, start_response):  # noqa: F811
    client = environ.get("gunicorn.socket")
    if client is not None:
        client.settimeout(settings.PLACEMENT_CLIENT_TIMEOUT)
    return _django_application(environ, start_response)


# The HTTP edge from oslo.middleware, as upstream's: proxy headers, request
# id, CORS, /healthcheck (placement_site/httpstack.py).  Outermost, so
# keystonemiddleware and Django see what it sets.
from placement_site import httpstack as _httpstack  # noqa: E402

application = _httpstack.build(application, settings.PLACEMENT_OSLO_CONF)

# Refuse to serve without a database: retry for PLACEMENT_DB_STARTUP_WAIT
# seconds, then exit non-zero.  Exit status 3 is gunicorn's "worker failed
# to boot", on which the whole server stops instead of re-forking workers
# that would fail the same way.
import logging  # noqa: E402
import sys  # noqa: E402

if settings.PLACEMENT_DB_STATEMENT_TIMEOUT:
    _database.install_statement_deadlines(settings.PLACEMENT_DB_STATEMENT_TIMEOUT)

from placement_core import state as _state  # noqa: E402

logging.getLogger("placement.startup").info(
    "placement: database %s; state directory %s",
    _state.describe_database(settings.DATABASES["default"]), settings.PLACEMENT_STATE_PATH)
try:
    _database.wait_for_database(settings.PLACEMENT_DB_STARTUP_WAIT,
                                log=logging.getLogger("placement.startup"))
except _database.DatabaseUnreachable as _exc:
    print(_exc, file=sys.stderr, flush=True)
    _database.exit_as_first_failed_worker(3)

# Load the policy now, so that a bad PLACEMENT_POLICY_FILE stops start-up.
from placement_core import policy as _policy  # noqa: E402

_policy.get_enforcer()

# Everything loaded so far (Django, DRF, the policy, os-traits: about 100,000
# objects) lives as long as the worker. Frozen, the cyclic collector stops
# walking it on every full collection (about 80 ms each on the bench machine);
# a request's own objects are still collected as before.
import gc  # noqa: E402

gc.freeze()
