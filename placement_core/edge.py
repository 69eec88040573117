"""The Placement HTTP edge, as one Django middleware.

For every Placement API path it: assigns a request id; authenticates
(noauth2 or keystone headers); checks the content-length/content-type pair
and refuses chunked bodies (411, on every path);
negotiates the microversion; and on the way out sets the request-id,
microversion, vary and (from 1.15) cache headers, and drops the
content-type of empty responses.  Errors raised here or by views are
rendered in Placement's error format (placement_core.errors).
"""
import functools
import time
import uuid
from contextlib import nullcontext
from email.utils import formatdate

from django.conf import settings
from django.http import HttpResponse
from django.urls import Resolver404, URLResolver, get_resolver, resolve

from placement_core import dbtiming, errors, metrics, microversion, request_scope, requestlog
from placement_core.gcpause import collector_paused
from placement_core.context import RequestContext

# Where oslo.middleware's RequestId leaves the request's id in the environ.
REQUEST_ID_KEY = "openstack.request_id"


def is_api_path(path):
    """Whether the edge handles ``path``: the view it resolves to says so
    (``placement_api``, True on ``placement_core.api.PlacementView``, False
    on its operations endpoints; a view of Django's own, the console's or
    the API docs' has none).  A path that resolves to nothing is the API's
    (an unknown route: 401 without a token, then Placement's 404) unless it
    lies under a part of the site Django serves (:func:`django_areas`)."""
    try:
        match = resolve(path)
    except Resolver404:
        return not any(path.startswith(area) or path == area.rstrip("/")
                       for area in django_areas(get_resolver()))
    view = getattr(match.func, "view_class", match.func)
    return getattr(view, "placement_api", False)


@functools.cache
def django_areas(root) -> tuple:
    """The path prefixes of the ``include()``s of the URLconf ``root`` (the
    admin, the console, the API docs) and of the static files: their
    unknown paths get Django's own 404 page, not the API's."""
    prefixes = [f"/{entry.pattern}" for entry in root.url_patterns
                if isinstance(entry, URLResolver)]
    return (*prefixes, f"/{settings.STATIC_URL.lstrip('/')}")


# Django reads a body by its Content-Length, which a chunked body has not:
# it would be read as empty. Refused, as a reverse proxy without buffering
# does (nginx, Apache and HAProxy in front send the length themselves).
CHUNKED_REFUSED = ("A chunked request body (Transfer-Encoding: chunked) is not accepted; "
                   "send the body with a Content-Length header.")


def is_chunked(request):
    return "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()


def _split(value):
    return [item.strip() for item in (value or "").split(",") if item.strip()]


def noauth2_context(request):
    """Build the context from a noauth2 token (`user` or `user:project`)."""
    token = request.META.get("HTTP_X_AUTH_TOKEN")
    if not token:
        return None
    user, _, project = token.partition(":")
    project = request.META.get("HTTP_X_PROJECT_ID") or project or user
    roles_header = request.META.get("HTTP_X_ROLES")
    if roles_header is not None:
        roles = _split(roles_header)
    else:
        roles = ["admin"] if user == "admin" else []
    scope = request.META.get("HTTP_OPENSTACK_SYSTEM_SCOPE") or None
    return RequestContext(user_id=user, project_id=project, roles=roles, system_scope=scope)


def keystone_context(request):
    """Build the context from the headers keystonemiddleware's auth_token sets."""
    # Identity headers are trusted only on requests auth_token checked
    # (placement_site.keystone marks them).
    if not request.META.get("placement.keystone_authenticated"):
        return None
    if request.META.get("HTTP_X_IDENTITY_STATUS") != "Confirmed":
        return None
    return RequestContext(
        user_id=request.META.get("HTTP_X_USER_ID"),
        project_id=request.META.get("HTTP_X_PROJECT_ID"),
        roles=[r.lower() for r in _split(request.META.get("HTTP_X_ROLES"))],
        system_scope=request.META.get("HTTP_OPENSTACK_SYSTEM_SCOPE") or None,
    )


def taken_by_edge(request) -> bool:
    """Whether the edge took ``request`` as an API request (its request id
    is set then, and only then)."""
    return getattr(request, "placement_request_id", None) is not None


def authenticate(request):
    if settings.PLACEMENT_AUTH_STRATEGY == "noauth2":
        return noauth2_context(request)
    return keystone_context(request)


class PlacementEdgeMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not is_api_path(request.path_info):
            if is_chunked(request):
                return HttpResponse(CHUNKED_REFUSED, status=411, content_type="text/plain")
            return self.get_response(request)
        started = time.perf_counter()
        # oslo.middleware's RequestId assigned it (placement_site/httpstack.py);
        # a handler called without that edge (Django's test client) makes one.
        request_id = request.META.get(REQUEST_ID_KEY) or f"req-{uuid.uuid4()}"
        request.placement_request_id = request_id
        request.placement_global_request_id = requestlog.global_request_id(request)
        request.placement_mv = None
        # The allocation history reads who is asking from here (request_scope).
        scope = request_scope.bind_request(request)
        timing = dbtiming.timed_statements() if settings.PLACEMENT_TIMING_HEADERS else nullcontext()
        try:
            try:
                with collector_paused(), timing as timer:
                    response = self._handle(request)
            except errors.PlacementError as exc:
                response = errors.render_error(request, exc)
                timer = None
            if timer is not None:
                dbtiming.add_headers(response, timer)
            response = self._finish(request, response)
            metrics.observe_request(request, response, time.perf_counter() - started)
            # Still bound: the line carries the request's context (user, project).
            requestlog.log_request(request, response)
        finally:
            request_scope.reset(scope)
        return response

    def _handle(self, request):
        context = authenticate(request)
        if context is None and request.path_info != "/":
            raise errors.Unauthorized("The request you have made requires authentication.")
        if context is None:
            context = RequestContext()
        context.request_id = request.placement_request_id
        context.global_request_id = request.placement_global_request_id
        request.placement_context = context

        header = request.META.get(microversion.META_KEY)
        try:
            version = microversion.negotiate(header)
        except microversion.InvalidVersion as exc:
            raise errors.BadRequest(f"invalid version string: {exc.text}")
        except microversion.UnsupportedVersion as exc:
            raise errors.NotAcceptable(
                f"Unacceptable version header: {exc.text}",
                extra={
                    "max_version": str(microversion.MAX_VERSION),
                    "min_version": str(microversion.MIN_VERSION),
                },
            )
        request.placement_mv = version

        if is_chunked(request):
            raise errors.LengthRequired(CHUNKED_REFUSED)
        # Checked after the version, as upstream checks it (in its handler
        # wrapper, so the answer names the version but has no vary).
        content_length = request.META.get("CONTENT_LENGTH")
        if content_length:
            try:
                length = int(content_length)
            except ValueError:
                raise errors.BadRequest("content-length header must be an integer", vary=False)
            if length > 0 and not request.META.get("CONTENT_TYPE"):
                raise errors.BadRequest(
                    "content-type header required when content-length > 0", vary=False)
        return self.get_response(request)

    def _finish(self, request, response):
        request_id = request.placement_request_id
        response["x-openstack-request-id"] = request_id
        response["openstack-request-id"] = request_id
        # As upstream: no version header when none was negotiated (a bad
        # version, a refused token), and no vary on the errors upstream
        # raises outside its handlers (PlacementError.vary).
        if request.placement_mv is not None:
            response["openstack-api-version"] = (
                f"{microversion.SERVICE_TYPE} {request.placement_mv}")
        if request.placement_mv is not None and getattr(response, "placement_vary", True):
            vary = response.get("vary")
            if not vary:
                response["vary"] = "openstack-api-version"
            elif "openstack-api-version" not in vary.lower():
                response["vary"] = f"{vary}, openstack-api-version"
        has_body = bool(getattr(response, "content", b""))
        caching = request.placement_mv is not None and request.placement_mv >= (1, 15)
        if not caching:
            # Cache headers exist from 1.15 only; views may always pass a
            # last-modified time, and this is the one place that decides.
            for name in ("cache-control", "last-modified"):
                if name in response:
                    del response[name]
        # A HEAD answer never has a body; its type is the page's (errors.error_format).
        if not has_body and request.method != "HEAD":
            if "Content-Type" in response:
                del response["Content-Type"]
        elif (
            caching
            and response.status_code in (200, 201)
            and response.get("Content-Type", "").startswith("application/json")
        ):
            response["cache-control"] = "no-cache"
            if "last-modified" not in response and not getattr(
                    response, "placement_undated", False):
                response["last-modified"] = formatdate(usegmt=True)
        return response
