"""The database check behind ``GET /healthcheck``.

The probe itself is oslo.middleware's ``Healthcheck`` (placement_site.httpstack),
as every OpenStack service serves it: ``200 OK`` or ``503`` with the reasons as
text, JSON or HTML by the ``Accept`` header, ``204`` to ``HEAD``, and the
``[healthcheck]`` options (``detailed``, ``backends``, ``allowed_source_ranges``,
``disable_by_file_path``, ...).  This module is one of its backends, registered
under the ``oslo.middleware.healthcheck`` entry point as ``placement_database``
(pyproject.toml) and always run: one ``SELECT 1`` on the default connection; a
connection that cannot be opened or answered counts as down.  The reason says
only up or down; the driver's message is in the details, which oslo.middleware
shows only with ``[healthcheck] detailed = true``.
"""
import time

from django.db import DatabaseError, connections
from oslo_middleware.healthcheck import pluginbase

DB_ALIAS = "default"
BACKEND = "placement_database"


def database_connection():
    return connections[DB_ALIAS]


def database_status():
    """(ok, details) for the database; never raises for a database error."""
    conn = database_connection()
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
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return False, f"{conn.vendor}: {exc.__class__.__name__}: {message}".rstrip(": ")
    elapsed_ms = round((time.monotonic() - started) * 1000, 3)
    return True, f"{conn.vendor}: SELECT 1 in {elapsed_ms} ms"


class DatabaseCheck(pluginbase.HealthcheckBaseExtension):
    def healthcheck(self, server_port):
        ok, details = database_status()
        reason = "OK" if ok else "database unavailable"
        return pluginbase.HealthcheckResult(available=ok, reason=reason, details=details)
