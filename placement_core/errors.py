"""Placement's error format and the domain exceptions that map onto it.

Services raise these; one place (``render_error``) turns any of them into
``{"errors": [{"status", "title", "detail", "request_id", "code"}]}``, with
``code`` from microversion 1.23.
"""
import json
from html import escape

from django.http import HttpResponse

TITLES = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    406: "Not Acceptable",
    409: "Conflict",
    411: "Length Required",
    413: "Request Entity Too Large",
    415: "Unsupported Media Type",
    500: "Internal Server Error",
    503: "Service Unavailable",
}

# A short general sentence per status; the specific reason follows it.
EXPLANATIONS = {
    400: "The server could not comply with the request since it is either "
    "malformed or otherwise incorrect.",
    401: "This server could not verify that you are authorized to access the "
    "document you requested.",
    403: "Access was denied to this resource.",
    404: "The resource could not be found.",
    405: "The method {method} is not allowed for this resource.",
    406: "The resource could not be generated in a form acceptable to the client.",
    409: "There was a conflict when trying to complete your request.",
    411: "The request needs a Content-Length header.",
    413: "The body of the request is larger than this server accepts.",
    415: "The request media type is not supported by this server.",
    500: "The server has either erred or is incapable of performing the "
    "requested operation.",
    503: "The server is currently unavailable. Please try your request again later.",
}

# Error codes (exposed from microversion 1.23).
DEFAULT_CODE = "placement.undefined_code"
CONCURRENT_UPDATE = "placement.concurrent_update"
DUPLICATE_NAME = "placement.duplicate_name"
INVENTORY_INUSE = "placement.inventory.inuse"
PROVIDER_IN_USE = "placement.resource_provider.inuse"
PROVIDER_CANNOT_DELETE_PARENT = "placement.resource_provider.cannot_delete_parent"
PROVIDER_NOT_FOUND = "placement.resource_provider.not_found"
QUERY_DUPLICATE_KEY = "placement.query.duplicate_key"
QUERY_BAD_VALUE = "placement.query.bad_value"
QUERY_MISSING_VALUE = "placement.query.missing_value"
# Not upstream's: a candidates request past [placement] candidate_work_limit.
QUERY_TOO_MUCH_WORK = "placement.query.too_much_work"
DATABASE_UNAVAILABLE = "placement.database_unavailable"

# Seconds a client is asked to wait after a 503 (a Galera node rejoining, a
# database restarting).
RETRY_AFTER_SECONDS = 5


class PlacementError(Exception):
    """An error with an HTTP status, shown to the client in Placement's format."""

    status = 500
    #: Whether the answer carries ``Vary: openstack-api-version``. Upstream
    #: adds it to the errors its handlers raise, not to those raised around
    #: them (a refused policy, an unknown route, some failed look-ups).
    vary = True

    def __init__(self, detail="", *, code=None, headers=None, status=None, extra=None,
                 vary=None):
        super().__init__(detail)
        self.detail = detail
        if vary is not None:
            self.vary = vary
        self.code = code
        self.headers = headers or {}
        self.extra = extra or {}
        if status is not None:
            self.status = status


class BadRequest(PlacementError):
    status = 400


class Unauthorized(PlacementError):
    status = 401


class Forbidden(PlacementError):
    status = 403
    vary = False  # upstream's policy check fails outside its handlers


class NotFound(PlacementError):
    status = 404


class MethodNotAllowed(PlacementError):
    status = 405


class NotAcceptable(PlacementError):
    status = 406


class Conflict(PlacementError):
    status = 409


class LengthRequired(PlacementError):
    status = 411


class RequestTooLarge(PlacementError):
    status = 413


class UnsupportedMediaType(PlacementError):
    status = 415


class ServiceUnavailable(PlacementError):
    status = 503


# MariaDB/MySQL client and server error numbers that mean "no usable
# database right now": cannot connect (2002, 2003), connection lost or gone
# (2006, 2013), the server shutting down (1053).
_MYSQL_UNAVAILABLE = frozenset({2002, 2003, 2006, 2013, 1053})
# A Galera node outside the primary component (1047 WSREP has not yet
# prepared node for application use): unavailable, but a retry may reach a
# node that is ready.
_MYSQL_NOT_READY = 1047
# MariaDB/MySQL: deadlock or Galera certification conflict, lock wait timeout.
_MYSQL_LOST_RACE = frozenset({1213, 1205})
# PostgreSQL: deadlock detected, serialization failure, lock not available.
_SQLSTATE_LOST_RACE = frozenset({"40P01", "40001", "55P03"})

# What a database error means for the request (:func:`database_trouble`).
DB_UNAVAILABLE = "unavailable"
DB_NOT_READY = "not ready"
DB_LOST_RACE = "lost race"


def database_trouble(exc) -> str | None:
    """The one classifier of database errors: :data:`DB_UNAVAILABLE` (no
    usable connection), :data:`DB_NOT_READY` (a Galera node not in the
    primary component), :data:`DB_LOST_RACE` (a concurrent writer won: a
    deadlock, serialization failure, lock wait timeout, SQLite's busy
    timeout), or None when the error is not one of these (a bug).

    The retry loops run a write again on a lost race or a node not ready;
    a view answers 503 for the first two and 409 for the third."""
    from django.db import Error, InterfaceError

    if not isinstance(exc, Error):
        return None
    if isinstance(exc, InterfaceError):
        return DB_UNAVAILABLE
    cause = exc.__cause__
    code = cause.args[0] if cause is not None and cause.args and isinstance(
        cause.args[0], int) else None
    sqlstate = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None) or ""
    if code == _MYSQL_NOT_READY:
        return DB_NOT_READY
    if code in _MYSQL_UNAVAILABLE or (
        # PostgreSQL: connection exceptions (08...), the server shutting down
        # (57P...), a statement stopped by statement_timeout (57014: a
        # database too slow to answer in time is no database right now).
        type(cause).__module__.startswith("psycopg") and (
            sqlstate.startswith(("08", "57P")) or sqlstate == "57014"
            or (not sqlstate and "connect" in str(cause)))):
        return DB_UNAVAILABLE
    if code in _MYSQL_LOST_RACE or sqlstate in _SQLSTATE_LOST_RACE:
        return DB_LOST_RACE
    if type(cause).__module__ == "sqlite3" and "database is locked" in str(exc):
        return DB_LOST_RACE
    return None


def for_database_error(exc):
    """The PlacementError a database error that escaped a view stands for,
    or None when it is a bug (a 500).

    No usable database -> 503 with Retry-After; a lost lock or certification
    race that no retry loop absorbed -> 409, like any other concurrent update.
    """
    trouble = database_trouble(exc)
    if trouble in (DB_UNAVAILABLE, DB_NOT_READY):
        return ServiceUnavailable(
            "The database is unavailable. Please try again later.",
            code=DATABASE_UNAVAILABLE, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
    if trouble == DB_LOST_RACE:
        return Conflict(
            "Another request changed the same data at the same time. Please try again.",
            code=CONCURRENT_UPDATE)
    return None


def for_request_error(exc):
    """The PlacementError one of Django's refusals while reading a request
    stands for, or None when ``exc`` is not one.

    The body over the upload limit is a 413; too many query or form fields
    (and Django's other ``SuspiciousOperation``), a malformed multipart body,
    Django's ``BadRequest`` and a body that cannot be read to its end (the
    client went away in the middle of it: ``UnreadablePostError``) are the
    client's fault and a 400. Nothing of the request was acted on.
    """
    from django.core.exceptions import BadRequest as DjangoBadRequest
    from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
    from django.http.multipartparser import MultiPartParserError
    from django.http.request import UnreadablePostError

    if isinstance(exc, RequestDataTooBig):
        return RequestTooLarge(str(exc))
    if isinstance(exc, UnreadablePostError):
        return BadRequest(f"The request body could not be read: {exc or 'the client went away'}")
    if isinstance(exc, (SuspiciousOperation, DjangoBadRequest, MultiPartParserError)):
        return BadRequest(str(exc))
    return None


def error_format(request) -> str:
    """"json", "html" or "head": how an error is written for the client.
    An HTML page when the Accept prefers HTML and does not take JSON, as
    upstream's error pages; otherwise JSON, even for a client that takes
    neither (upstream writes plain text there, whose words would have to be
    webob's to the letter: the JSON body says the same in Placement's
    format). A HEAD request gets what upstream's pages give it whatever its
    Accept: no body, an HTML type."""
    from placement_core.http import accepts_json, accept_types

    if request.method == "HEAD":
        return "head"
    accept = request.META.get("HTTP_ACCEPT")
    if accept and not accepts_json(accept) and "text/html" in accept_types(accept):
        return "html"
    return "json"


def render_error(request, error):
    """Build the HttpResponse for a PlacementError."""
    status = error.status
    title = TITLES.get(status, "Error")
    explanation = EXPLANATIONS.get(status, "").format(method=request.method)
    # The specific reason stays on one line (newlines become spaces, as
    # upstream's renderer does): clients such as osc-placement show only the
    # detail's last line.
    message = str(error.detail).replace("\n", " ").replace("\r", "") if error.detail else ""
    detail = f"{explanation}\n\n {message}  " if message else f"{explanation}\n\n   "
    request_id = getattr(request, "placement_request_id", None)
    written = error_format(request)
    if written == "head":
        response = HttpResponse(b"", status=status, content_type="text/html; charset=UTF-8")
    elif written == "html":
        body = (
            f"<html>\n <head>\n  <title>{status} {escape(title)}</title>\n </head>\n"
            f" <body>\n  <h1>{status} {escape(title)}</h1>\n  {escape(explanation)}<br /><br />\n"
            f"{escape(str(error.detail))}\n\n\n </body>\n</html>"
        )
        response = HttpResponse(body, status=status, content_type="text/html; charset=UTF-8")
    else:
        entry = {"status": status, "title": title, "detail": detail}
        if request_id:
            entry["request_id"] = request_id
        version = getattr(request, "placement_mv", None)
        if version is not None and version >= (1, 23):
            entry["code"] = error.code or DEFAULT_CODE
        entry.update(error.extra)
        response = HttpResponse(
            json.dumps({"errors": [entry]}), status=status, content_type="application/json"
        )
    for name, value in error.headers.items():
        response[name] = value
    response.placement_vary = error.vary
    return response
