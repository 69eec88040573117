"""GET /allocation_candidates (microversion 1.10+) and GET /explain.

``/allocation_candidates``: the query read by ``candidates.query`` (its
microversion's JSON Schema, then the grammar), the search done by
``candidates.engine`` and the answer shaped by ``candidates.api.render``.

``/explain?<allocation-candidates query>``: why that query finds what it
finds. Outside the Placement API's namespace (no microversion; the edge
leaves ``/explain`` alone), behind the API's authentication (noauth2 token
or keystone headers) and the ``placement:explain`` policy rule (default:
admin or service: it names every provider of the cloud with its usage); a
bad query is a 400 in Placement's error body with the
words ``GET /allocation_candidates`` would use. The body is
:class:`candidates.explanation.Explanation` as JSON.
"""
import json

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from candidates import engine, explain, query, signals
from candidates.api import schemas
from candidates.api.render import encode, render
from placement_core import metrics
from placement_core.api import (
    OperationsView,
    PlacementView,
    error_response,
    json_response,
    versioned,
)
from placement_core.policy import authorize
from placement_core.replica import bulk_read

_QUERY_DOC = [
    OpenApiParameter(name, str, description=text, required=False)
    for name, text in (
        ("resources", "Unsuffixed group amounts, e.g. VCPU:1,MEMORY_MB:512 (1.10+)."),
        ("required", "Traits, '!' forbidden (1.22+), 'in:A,B' any-of (1.39+) (1.17+)."),
        ("member_of", "Aggregate uuid, 'in:' any-of, '!' forbidden (1.32+) (1.21+)."),
        ("in_tree", "Only the tree of this provider (1.31+)."),
        ("limit", "At most this many allocation requests (1.16+)."),
        ("group_policy", "none or isolate, needed with more than one suffixed group (1.25+)."),
        ("root_required", "Traits the root of the tree must (not) have (1.35+)."),
        ("same_subtree", "Suffixes whose providers must share a subtree (1.36+)."),
    )
]


class AllocationCandidatesView(PlacementView):
    @extend_schema(
        summary="List allocation candidates",
        parameters=_QUERY_DOC,
        request=None,
        responses={
            200: OpenApiResponse(
                response=schemas.RESPONSE,
                description="Allocation requests and provider summaries.",
            ),
            400: error_response("Bad query string."),
            403: error_response("Policy does not allow this."),
            404: error_response("Before microversion 1.10."),
        },
    )
    @versioned("1.10")
    @bulk_read
    def get(self, request):
        authorize(request, "placement:allocation_candidates:list")
        parsed = query.parse_strict(request.GET, self.mv)
        found = engine.find_candidates(parsed)
        metrics.CANDIDATES.observe(len(found.allocation_requests))
        if not found.allocation_requests:
            signals.no_candidates.send(sender=type(self), request=request,
                                       candidate_request=parsed)
        return json_response(render(found, self.mv), encoder=encode)


class ExplainView(OperationsView):
    def get(self, request):
        authorize(request, "placement:explain")
        result = explain.explain(query.parse_query(request.META.get("QUERY_STRING", "")))
        return HttpResponse(json.dumps(result.as_dict()), content_type="application/json")
