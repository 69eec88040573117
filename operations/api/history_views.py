"""GET /history/consumers/{uuid} and /history/providers/{uuid}: the allocation history.

Outside the Placement API's namespace (no microversion; the edge leaves
``/history/`` alone), behind the API's authentication (noauth2 token or
keystone headers) and the ``placement:history:list`` policy rule (default:
admin or service: the records name every caller's user and project);
errors use Placement's error body.  ``?since=`` takes an
ISO 8601 date or date-time.
"""
import json

from django.http import HttpResponse
from django.views.decorators.http import require_GET

from operations import history
from placement_core import edge, errors
from placement_core.policy import authorize
from placement_core.uuids import normalize_uuid


def _since(request):
    raw = request.GET.get("since")
    if raw is None:
        return None
    try:
        return history.parse_since(raw)
    except ValueError:
        raise errors.BadRequest(f"Invalid since: {raw!r} is not an ISO 8601 date or date-time")


def _history(request, *, kind, uuid):
    try:
        context = edge.authenticate(request)
        if context is None:
            raise errors.Unauthorized("The request you have made requires authentication.")
        request.placement_context = context
        authorize(request, "placement:history:list")
        value = normalize_uuid(uuid)
        if value is None:
            raise errors.NotFound(f"No such {kind}: {uuid}")
        since = _since(request)
    except errors.PlacementError as exc:
        return errors.render_error(request, exc)
    changes = history.changes_for(**{kind: value}, since=since)
    body = {kind: value, "changes": [history.as_dict(change) for change in changes]}
    return HttpResponse(json.dumps(body), content_type="application/json")


@require_GET
def consumer_history(request, uuid):
    return _history(request, kind="consumer", uuid=uuid)


@require_GET
def provider_history(request, uuid):
    return _history(request, kind="provider", uuid=uuid)
