"""What every Placement API view shares.

- :class:`PlacementView`: a thin DRF ``APIView`` with Placement's method
  handling (405 + ``Allow``), Accept check (406) and error rendering.
- :func:`versioned`: gate a handler on the request's microversion.
- :func:`json_body`: content-type check (415), JSON parsing and JSON Schema
  validation (400) of a request body.
- :func:`json_response` / :func:`empty_response`: the answers.
- :func:`exception_handler`: DRF's hook; turns every error into Placement's
  error format (placement_core.errors.render_error).
"""
import functools
import json
import logging
from email.utils import formatdate

import jsonschema
from django.http import Http404, HttpResponse
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions as drf_exceptions
from rest_framework.views import APIView

from placement_core import edge, errors
from placement_core.http import accepts_json, media_type
from placement_core.microversion import Version

LOG = logging.getLogger(__name__)

_FORMAT_CHECKER = jsonschema.FormatChecker()


@_FORMAT_CHECKER.checks("uuid")
def _is_uuid_like(value):
    """Placement's notion of a uuid: dashes optional, any case."""
    if not isinstance(value, str):
        return True
    import uuid as _uuid

    try:
        parsed = _uuid.UUID(value)
    except (TypeError, ValueError, AttributeError):
        return False
    return parsed.hex == value.replace("-", "").lower().removeprefix("urn:uuid:").strip("{}")


def exception_handler(exc, context):
    request = context["request"]
    view = context.get("view")
    django_request = getattr(request, "_request", request)
    if isinstance(exc, errors.PlacementError):
        return errors.render_error(django_request, exc)
    if isinstance(exc, drf_exceptions.MethodNotAllowed):
        allow = ", ".join(view.allowed_methods) if view is not None else ""
        return errors.render_error(
            django_request,
            errors.MethodNotAllowed(
                "The method specified is not allowed for this resource.",
                headers={"Allow": allow},
            ),
        )
    if isinstance(exc, (Http404, drf_exceptions.NotFound)):
        return errors.render_error(django_request, errors.NotFound("", vary=False))
    if isinstance(exc, drf_exceptions.APIException):
        return errors.render_error(
            django_request, errors.PlacementError(str(exc.detail), status=exc.status_code)
        )
    mapped = errors.for_request_error(exc)
    if mapped is not None:
        # Django refusing to parse the request (a body over the limit, too
        # many fields, a body the client stopped sending): the client's fault.
        LOG.info("%s %s: %s (%s: %s)", request.method, request.path, mapped.status,
                 type(exc).__name__, exc)
        return errors.render_error(django_request, mapped)
    mapped = errors.for_database_error(exc)
    if mapped is not None:
        LOG.warning("%s %s: %s (%s)", request.method, request.path, mapped.status, exc)
        return errors.render_error(django_request, mapped)
    LOG.exception("Unexpected error handling %s %s", request.method, request.path)
    return errors.render_error(
        django_request, errors.PlacementError("An unexpected error occurred.")
    )


class PlacementView(APIView):
    """Base class for every Placement endpoint."""

    #: The Placement HTTP edge (placement_core.edge) reads this off the view
    #: a path resolves to: request ids, authentication, microversions and
    #: cache headers for the API; nothing for an operations endpoint.
    placement_api = True

    # HEAD and OPTIONS are not Placement methods: they get a 405.
    http_method_names = ["get", "post", "put", "patch", "delete"]

    @property
    def default_response_headers(self):
        return {}

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if request.method == "GET" and not accepts_json(request.META.get("HTTP_ACCEPT")):
            raise errors.NotAcceptable("Only application/json is provided")

    @property
    def context(self):
        return self.request.placement_context

    @property
    def mv(self) -> Version:
        return self.request.placement_mv


class OperationsView(PlacementView):
    """An operations endpoint (``/metrics``, ``/history/...``, ``/explain``):
    outside the Placement API, so the edge leaves it alone (no microversion,
    no request-id or cache headers, any ``Accept``), but behind the API's
    authentication and a policy rule, its errors in Placement's format."""

    placement_api = False
    http_method_names = ["get"]
    # Not in the OpenAPI document, which describes the Placement API.
    schema = None

    def initial(self, request, *args, **kwargs):
        APIView.initial(self, request, *args, **kwargs)
        # A method the view lacks is a 405 before any token is asked for.
        if request.method.lower() in self.http_method_names:
            context = edge.authenticate(request)
            if context is None:
                raise errors.Unauthorized("The request you have made requires authentication.")
            # On Django's request, where the edge's own readers look too.
            request._request.placement_context = context


# Placement's error body, for the OpenAPI description of 4xx answers.
ERROR_BODY = {
    "type": "object",
    "properties": {
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "status": {"type": "integer"},
                    "title": {"type": "string"},
                    "detail": {"type": "string"},
                    "code": {"type": "string"},
                    "request_id": {"type": "string"},
                },
                "required": ["status", "title", "detail"],
            },
        }
    },
    "required": ["errors"],
}


def error_response(description):
    """An OpenAPI response entry for an error answer (``extend_schema(responses=...)``)."""
    return OpenApiResponse(response=ERROR_BODY, description=description)


def versioned(min_version, max_version=None, *, status=404):
    """Make a handler exist only for microversions in [min_version, max_version].

    Outside the range the request gets a 404 (or ``status``, e.g. 405),
    as if the route did not exist at that version.
    """
    low = Version.parse(min_version)
    high = Version.parse(max_version) if max_version else None

    def decorator(handler):
        @functools.wraps(handler)
        def wrapper(self, request, *args, **kwargs):
            version = request.placement_mv
            if version < low or (high is not None and version > high):
                if status == 405:
                    raise errors.MethodNotAllowed(
                        "The method specified is not allowed for this resource.",
                        headers={"Allow": ", ".join(self.allowed_methods)},
                    )
                raise errors.NotFound("")
            return handler(self, request, *args, **kwargs)

        return wrapper

    return decorator


def require_json_content(request):
    """415 unless the request says its body is application/json."""
    content_type = media_type(request.META.get("CONTENT_TYPE"))
    if content_type != "application/json":
        shown = content_type or "None"
        raise errors.UnsupportedMediaType(
            f"The media type {shown} is not supported, use application/json"
        )


def validate(data, schema, *, problem="JSON does not validate"):
    """400 "<problem>: <the validator's message>" when ``data`` does not fit
    ``schema``. The one JSON Schema check of bodies and query strings; where
    several things are wrong, the most relevant error is named, as
    ``jsonschema.validate`` (and so upstream) names it."""
    error = jsonschema.exceptions.best_match(_validator(schema).iter_errors(data))
    if error is not None:
        raise errors.BadRequest(f"{problem}: {_bounded(str(error))}")
    return data


# Validators by schema: the schemas are module constants, and building a
# validator (checking its schema) on every request costs more than the check.
_VALIDATORS = {}


def _validator(schema):
    entry = _VALIDATORS.get(id(schema))
    if entry is None or entry[0] is not schema:
        jsonschema.Draft4Validator.check_schema(schema)
        entry = (schema, jsonschema.Draft4Validator(schema, format_checker=_FORMAT_CHECKER))
        _VALIDATORS[id(schema)] = entry
    return entry[1]


# The validator's message quotes the offending value; a huge one must not
# become a huge answer (and log line).
_MESSAGE_LIMIT = 4096


def _bounded(message: str) -> str:
    if len(message) <= _MESSAGE_LIMIT:
        return message
    cut = len(message) - _MESSAGE_LIMIT
    return f"{message[:3072]} ...({cut} characters left out)... {message[-1024:]}"


# No Placement body is more than six levels deep; a deeper one is refused
# before validation, whose messages would otherwise quote it level by level.
MAX_JSON_DEPTH = 32


def _check_json_values(data):
    """400 for a body too deep, or holding a string the database cannot store
    (a NUL character, an unpaired surrogate such as "\\udc80")."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                raise errors.BadRequest("Malformed JSON: a string holds a NUL character.")
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise errors.BadRequest(
                    "Malformed JSON: a string holds an unpaired surrogate escape."
                ) from None
        elif isinstance(value, (dict, list)):
            if depth > MAX_JSON_DEPTH:
                raise errors.BadRequest(
                    f"Malformed JSON: nested more than {MAX_JSON_DEPTH} levels deep."
                )
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                stack.append((key, depth))
                stack.append((item, depth + 1))


def _number(text: str):
    """A JSON number written with a fraction or exponent: an int when it is
    whole (842445.0, 1e3), as JSON Schema 2020-12 and the OpenAPI document
    count it, so the Draft 4 validators accept it where an integer is asked
    for; a float otherwise."""
    value = float(text)
    return int(value) if value.is_integer() else value


def json_body(request, schema=None):
    """Parse and validate the request body: 415, 400 or the data."""
    require_json_content(request)
    raw = request.body
    try:
        data = json.loads(raw.decode("utf-8") if raw else "", parse_float=_number)
    except RecursionError:
        raise errors.BadRequest(
            f"Malformed JSON: nested more than {MAX_JSON_DEPTH} levels deep."
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise errors.BadRequest(f"Malformed JSON: {exc}")
    _check_json_values(data)
    if schema is not None:
        validate(data, schema)
    return data


def unvaried_404(view_method):
    """Mark a view method's 404 as one without ``Vary``: for the endpoints
    where upstream's look-up of the named provider or class fails outside
    its handler, which is where the header would be added."""
    @functools.wraps(view_method)
    def wrapper(*args, **kwargs):
        try:
            return view_method(*args, **kwargs)
        except errors.NotFound as exc:
            exc.vary = False
            raise
    return wrapper


#: ``last_modified`` of an answer with nothing to date (an empty inventory
#: list): it then carries no Last-Modified header at all, as upstream's.
UNDATED = object()


def json_response(data, status=200, *, last_modified=None, headers=None, encoder=json.dumps):
    """A JSON answer; ``last_modified`` (a datetime, or :data:`UNDATED`)
    feeds the 1.15+ header (when None, the edge dates the answer now);
    ``encoder`` turns ``data`` into the body (str or bytes)."""
    response = HttpResponse(encoder(data), status=status, content_type="application/json")
    if last_modified is UNDATED:
        response.placement_undated = True
    elif last_modified is not None:
        response["last-modified"] = formatdate(last_modified.timestamp(), usegmt=True)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def empty_response(status=204, *, headers=None):
    response = HttpResponse(status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    return response
