"""GET /allocation_candidates (microversion 1.10+).

The query's shape is checked against the microversion's JSON Schema, its
meaning parsed by the grammar (placement_site.querystring), the search done
by allocations.engine and the answer shaped by candidates_render.
"""
import jsonschema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from allocations import engine
from allocations.api import candidates_schemas
from allocations.api.candidates_render import encode, render
from placement_site import errors, metrics
from placement_site.api import PlacementView, error_response, json_response, versioned
from placement_site.policy import authorize
from placement_site.querystring import parse_candidate_request, reject_nul
from placement_site.replica import bulk_read

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


# Query-schema validators, built (and the schema checked) once per schema;
# the schemas are module constants of candidates_schemas.
_QUERY_VALIDATORS = {}


def _query_validator(schema):
    entry = _QUERY_VALIDATORS.get(id(schema))
    if entry is None or entry[0] is not schema:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        entry = (schema, cls(schema))
        _QUERY_VALIDATORS[id(schema)] = entry
    return entry[1]


def _validate_query(query, version):
    """400 unless the query (each key's last value) fits the version's schema."""
    flat = {key: query.getlist(key)[-1] for key in query.keys()}
    validator = _query_validator(candidates_schemas.query_schema(version))
    error = jsonschema.exceptions.best_match(validator.iter_errors(flat))
    if error is not None:
        raise errors.BadRequest(f"Invalid query string parameters: {error}")


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
            400: error_response("Bad query string."),
            403: error_response("Policy does not allow this."),
            404: error_response("Before microversion 1.10."),
        },
    )
    @versioned("1.10")
    @bulk_read
    def get(self, request):
        authorize(request, "placement:allocation_candidates:list")
        reject_nul(request.GET)
        _validate_query(request.GET, self.mv)
        found = engine.find_candidates(parse_candidate_request(request.GET, self.mv))
        metrics.CANDIDATES.observe(len(found.allocation_requests))
        return json_response(render(found, self.mv), encoder=encode)
