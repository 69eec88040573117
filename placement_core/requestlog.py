"""One log line per Placement API request, in the shape operators know from
upstream's request log: who asked, what, the answer's status and length, the
microversion, and the request ids that tie the line to other services' logs.

Logged at INFO on the ``placement.requestlog`` logger, while the request is
still bound (placement_core.request_scope), so that oslo.log's formatters add
its context (placement_site/logsetup.py), as to every other line; set
``PLACEMENT_REQUEST_LOG_LEVEL`` (e.g. ``WARNING``) to silence it.
"""
import logging
import re

LOG = logging.getLogger("placement.requestlog")

# A global request id is accepted only in the shape OpenStack services send
# ("req-" and a lowercase UUID); anything else is ignored, never logged.
GLOBAL_ID = re.compile(r"^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def global_request_id(request):
    """The caller's valid X-OpenStack-Request-ID, or None."""
    value = request.META.get("HTTP_X_OPENSTACK_REQUEST_ID", "")
    return value if GLOBAL_ID.match(value) else None


def escape(text):
    """Control characters as \\xNN, so a decoded %0A cannot start a forged line."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class EscapeControlCharacters(logging.Filter):
    """On every handler: a message's control characters escaped, so a path
    or name a client chose (Django's "Not Found: <path>", our error logs)
    cannot start a forged log line. Tracebacks are added by the formatter
    after this and keep their lines."""

    def filter(self, record):
        message = record.getMessage()
        escaped = escape(message)
        if escaped != message:
            record.msg, record.args = escaped, None
        return True


def response_length(response):
    if getattr(response, "streaming", False):
        return response.get("Content-Length", "-")
    return str(len(response.content))


def log_request(request, response):
    if not LOG.isEnabledFor(logging.INFO):
        return
    query = request.META.get("QUERY_STRING", "")
    path = request.path + (f"?{query}" if query else "")
    version = request.placement_mv
    LOG.info(
        '[%s %s] %s "%s %s" status: %s len: %s microversion: %s',
        request.placement_request_id,
        request.placement_global_request_id or "-",
        escape(request.META.get("REMOTE_ADDR") or "-"),
        escape(request.method),
        escape(path),
        response.status_code,
        response_length(response),
        str(version) if version else "-",
    )
