"""The HTTP edge in front of Django: oslo.middleware, as upstream Placement's.

Outermost first, what every request goes through (placement_site.wsgi):

* ``HTTPProxyToWSGI``, only with ``[oslo_middleware] enable_proxy_headers_parsing``
  (an option read at start-up, as upstream's is): the scheme, host, client
  address and path prefix a proxy reports in ``Forwarded`` /
  ``X-Forwarded-*`` replace the connection's;
* ``RequestId``: a ``req-<uuid>`` per request in ``openstack.request_id``
  (the edge, the request log and every log line use it) and a valid
  ``X-OpenStack-Request-ID`` from the caller in ``openstack.global_request_id``;
  the id is answered in ``x-openstack-request-id`` and ``openstack-request-id``;
* ``CORS`` with the ``[cors]`` options, only when ``allowed_origin`` names an
  origin (upstream installs it only then too): a preflight is answered 200
  before authentication;
* ``Healthcheck`` on ``/healthcheck`` with the ``[healthcheck]`` options, its
  backends always including this service's database check
  (``placement_core.health.DatabaseCheck``); no token needed.

Everything reads the oslo.config object the settings were read from, so the
options and their spellings are oslo.middleware's own.
"""
from importlib.metadata import entry_points

from django.core.exceptions import ImproperlyConfigured
from oslo_middleware import cors, healthcheck, http_proxy_to_wsgi, request_id
from oslo_middleware.healthcheck import opts as healthcheck_opts

from placement_core import health

HEALTHCHECK_PATH = "/healthcheck"


class RequestId(request_id.RequestId):
    # Nova's report client reads either spelling; both have always been sent.
    compat_headers = ["openstack-request-id"]


class HealthcheckAt:
    """``GET``/``HEAD`` on ``/healthcheck`` to oslo.middleware's probe (a
    405 for any other method), everything else to ``app``."""

    def __init__(self, app, conf):
        self.app = app
        # The database check always runs; [healthcheck] backends adds others.
        # stevedore would skip a backend it cannot find, and the probe answer
        # OK without asking the database: refuse to start instead.
        if health.BACKEND not in entry_points(group=healthcheck.Healthcheck.NAMESPACE).names:
            raise ImproperlyConfigured(
                f"the {health.BACKEND} healthcheck backend is not installed: install this "
                "package (pip install, or make venv in a checkout)")
        conf.register_opts(healthcheck_opts.HEALTHCHECK_OPTS, group="healthcheck")
        backends = [b for b in conf.healthcheck.backends if b != health.BACKEND]
        conf.set_override("backends", [health.BACKEND, *backends], group="healthcheck")
        # A request the probe declines ([healthcheck] allowed_source_ranges,
        # ignore_proxied_requests) goes on to Django, which has no such page.
        self.probe = healthcheck.Healthcheck(app, conf)

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") != HEALTHCHECK_PATH:
            return self.app(environ, start_response)
        if environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            start_response("405 Method Not Allowed", [
                ("Allow", "GET, HEAD"), ("Content-Type", "text/plain"), ("Content-Length", "0")])
            return [b""]

        def no_store(status, headers, exc_info=None):
            # Probes must see the live state, never a cached one.
            return start_response(status, headers + [("Cache-Control", "no-store")], exc_info)

        return self.probe(environ, no_store)


def last_address(environ):
    """The last address the proxies list: the one the proxy in front of this
    service appended ("" when none is usable)."""
    forwarded = environ.get("HTTP_FORWARDED")
    if forwarded:
        address = ""
        for pair in forwarded.split(",")[-1].split(";"):
            key, _, value = pair.partition("=")
            if key.strip().lower() == "for":
                address = value
    else:
        address = (environ.get("HTTP_X_FORWARDED_FOR") or "").split(",")[-1]
    address = address.strip().strip('"')
    if address.startswith("["):
        address = address[1:].split("]")[0]
    elif address.count(":") == 1:
        address = address.split(":")[0]
    if address.startswith("_") or address.lower() == "unknown":
        return ""  # obfuscated or unknown: says nothing usable
    return address


class ClientAddress:
    """Inside ``HTTPProxyToWSGI``: oslo.middleware takes the whole
    ``X-Forwarded-For`` list, or the first ``Forwarded`` element's address,
    which the client itself can write; the log-in throttle and the request
    log need the one that cannot be forged."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        address = last_address(environ)
        if address:
            environ["REMOTE_ADDR"] = address
        return self.app(environ, start_response)


def build(app, conf):
    """``app`` (Django's WSGI handler, auth in front) behind the edge; ``conf``
    has the [cors] and [oslo_middleware] options registered (placement_site.config)."""
    app = HealthcheckAt(app, conf)
    if conf.cors.allowed_origin:
        app = cors.CORS(app, conf)
    app = RequestId(app, conf)
    if not conf.oslo_middleware.enable_proxy_headers_parsing:
        # Off, HTTPProxyToWSGI changes nothing, yet turned every answer into
        # a webob response and back (0.045 ms a request, a sixth of GET /).
        return app
    return http_proxy_to_wsgi.HTTPProxyToWSGI(ClientAddress(app), conf)
