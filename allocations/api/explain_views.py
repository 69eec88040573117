"""GET /explain?<allocation-candidates query>: why that query finds what it finds.

Outside the Placement API's namespace (no microversion; the edge leaves
``/explain`` alone), behind the API's authentication (noauth2 token or
keystone headers) and the ``placement:explain`` policy rule (default: admin
or service: it names every provider of the cloud with its usage); a bad query is a 400 in Placement's error body with the
words ``GET /allocation_candidates`` would use.  The body is
:class:`allocations.explain.Explanation` as JSON.
"""
import json

from django.http import HttpResponse
from django.views.decorators.http import require_GET

from allocations import explain
from placement_site import edge, errors
from placement_site.policy import authorize


@require_GET
def explain_view(request):
    try:
        context = edge.authenticate(request)
        if context is None:
            raise errors.Unauthorized("The request you have made requires authentication.")
        request.placement_context = context
        authorize(request, "placement:explain")
        result = explain.explain(explain.parse_query(request.META.get("QUERY_STRING", "")))
    except errors.PlacementError as exc:
        return errors.render_error(request, exc)
    return HttpResponse(json.dumps(result.as_dict()), content_type="application/json")
