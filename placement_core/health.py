"""GET /healthcheck: may a load balancer or deployment tool send traffic here?

Modelled on the probe deployment tools know from oslo.middleware: the plain
form needs no token and answers ``200 OK`` or ``503`` with the reason as
text; ``?detailed=1`` (or ``Accept: application/json``) from an admin adds
JSON details (database vendor, round-trip time, the error's class).  A
non-admin asking for details gets the plain answer: the probe must never
leak how the database is reached.

The check is one ``SELECT 1`` on the default connection; a connection that
cannot be opened or answered counts as down.  It runs outside the Placement
edge (placement_core.edge lists the path as non-API), so it carries no
microversion headers and never depends on the policy engine.
"""
import json
import time

from django.db import DatabaseError, connections
from django.http import HttpResponse
from django.views.decorators.http import require_http_methods

from placement_core import edge

DB_ALIAS = "default"


def _connection():
    return connections[DB_ALIAS]


def database_status():
    """(ok, reason, details) for the database; never raises for a DB error."""
    conn = _connection()
    started = time.monotonic()
    try:
        with conn.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        # Drop the broken connection so that the next probe reconnects.
        try:
            conn.close()
        except DatabaseError:
            pass
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
        return False, "database unavailable", {
            "vendor": conn.vendor, "error": exc.__class__.__name__, "message": reason,
        }
    elapsed_ms = round((time.monotonic() - started) * 1000, 3)
    return True, "OK", {"vendor": conn.vendor, "elapsed_ms": elapsed_ms}


def _wants_details(request):
    detailed = request.GET.get("detailed", "").lower() in ("1", "true", "yes")
    return detailed or "application/json" in request.META.get("HTTP_ACCEPT", "")


@require_http_methods(["GET", "HEAD"])
def healthcheck(request):
    ok, reason, details = database_status()
    status = 200 if ok else 503
    context = edge.authenticate(request) if _wants_details(request) else None
    if context is not None and context.is_admin:
        body = {"status": "OK" if ok else "UNAVAILABLE", "reason": reason,
                "checks": {"database": {"ok": ok, **details}}}
        response = HttpResponse(json.dumps(body), status=status, content_type="application/json")
    else:
        response = HttpResponse(reason, status=status, content_type="text/plain; charset=utf-8")
    # Probes must see the live state, never a cached one.
    response["Cache-Control"] = "no-store"
    return response
