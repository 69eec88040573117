"""Who is making the current change: a request-scoped context variable.

The edge binds the request for the length of one API call; code deep in a
service (the allocation history) reads it without every service signature
growing a ``context`` argument.  Commands bind a :class:`Caller` of their
own with :func:`bound`.  A ContextVar rather than a thread-local so that it
is also right under an async or threaded server.
"""
import contextlib
import re
import uuid
from contextvars import ContextVar
from dataclasses import dataclass

from oslo_context.context import RequestContext

_GLOBAL_ID = re.compile(r"^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@dataclass
class Caller:
    request_id: str = ""
    global_request_id: str = ""
    user_id: str = ""
    project_id: str = ""
    microversion: str = ""
    source: str = "api"


_current = ContextVar("placement_caller", default=None)


def _source(request) -> str:
    """The API write a request is, as the history names it (``api`` for
    anything else): the method and the route without its uuid."""
    method, path = request.method, request.path_info
    if path.startswith("/allocations/") and method in ("PUT", "DELETE"):
        return f"{method} /allocations"
    if path in ("/allocations", "/reshaper") and method == "POST":
        return f"POST {path}"
    return "api"


def from_request(request):
    """The caller of an API request the edge has authenticated and negotiated."""
    context = getattr(request, "placement_context", None)
    version = getattr(request, "placement_mv", None)
    global_id = request.META.get("HTTP_X_OPENSTACK_REQUEST_ID", "")
    return Caller(
        request_id=getattr(request, "placement_request_id", "") or "",
        # Only a well-formed id is kept: the header is caller-controlled.
        global_request_id=global_id if _GLOBAL_ID.match(global_id) else "",
        user_id=(context.user_id or "") if context else "",
        project_id=(context.project_id or "") if context else "",
        microversion=str(version) if version is not None else "",
        source=_source(request),
    )


def bind_request(request):
    """Called by the edge once the request is authenticated; returns a reset token."""
    return _current.set(request)


def reset(token):
    _current.reset(token)


def current() -> Caller:
    value = _current.get()
    if value is None:
        return Caller(request_id=f"req-{uuid.uuid4()}", source="internal")
    if isinstance(value, Caller):
        return value
    return from_request(value)


def log_context():
    """An oslo.context RequestContext for what is bound now, None when nothing
    is: oslo.log's formatters read the request ids, user and project from it."""
    value = _current.get()
    if value is None:
        return None
    caller = value if isinstance(value, Caller) else from_request(value)
    return RequestContext(request_id=caller.request_id or None,
                          global_request_id=caller.global_request_id or None,
                          user_id=caller.user_id or None, project_id=caller.project_id or None,
                          overwrite=False)


@contextlib.contextmanager
def bound(caller: Caller):
    token = _current.set(caller)
    try:
        yield caller
    finally:
        _current.reset(token)
