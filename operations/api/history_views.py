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

from operations import history
from placement_core import errors
from placement_core.api import OperationsView
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


class HistoryView(OperationsView):
    """The changes of one consumer or provider (``kind``), oldest first."""

    kind = None

    def get(self, request, uuid):
        authorize(request, "placement:history:list")
        value = normalize_uuid(uuid)
        if value is None:
            raise errors.NotFound(f"No such {self.kind}: {uuid}")
        changes = history.changes_for(**{self.kind: value}, since=_since(request))
        body = {self.kind: value, "changes": [history.as_dict(change) for change in changes]}
        return HttpResponse(json.dumps(body), content_type="application/json")


class ConsumerHistoryView(HistoryView):
    kind = "consumer"


class ProviderHistoryView(HistoryView):
    kind = "provider"
