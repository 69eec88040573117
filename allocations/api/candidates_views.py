"""GET /allocation_candidates (microversion 1.10+): thin view over allocations.candidates."""
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from allocations import candidates
from allocations.api import candidates_schemas
from placement_site import metrics
from placement_site.api import PlacementView, json_response, versioned
from placement_site.policy import authorize

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
                response=candidates_schemas.RESPONSE,
                description="Allocation requests and provider summaries.",
            ),
            400: OpenApiResponse(description="Bad query string."),
            403: OpenApiResponse(description="Policy does not allow this."),
            404: OpenApiResponse(description="Before microversion 1.10."),
        },
    )
    @versioned("1.10")
    def get(self, request):
        authorize(request, "placement:allocation_candidates:list")
        body = candidates.allocation_candidates(request.GET, self.mv)
        metrics.CANDIDATES.observe(len(body["allocation_requests"]))
        return json_response(body)
