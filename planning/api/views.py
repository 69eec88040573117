"""The planning endpoints (not upstream Placement; any microversion):

- ``GET /planning/drain``: planning.drain.drain, the drain what-if;
- ``GET /planning/forecast``: planning.forecast.forecast and
  planning.forecast.stranded;
- ``GET /planning/failures``: planning.failures.recent, the recorded
  scheduling failures.

Each is guarded by its ``placement:planning:*`` policy rule (default: an
administrator, placement_site/policies).
"""
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from placement_site import errors
from placement_site.api import PlacementView, error_response, json_response
from placement_site.policy import authorize
from placement_site.querystring import reject_nul
from planning import drain
from resource_classes.models import Trait

_DRAIN_PARAMETERS = {
    "provider": "A provider to drain, by uuid or name, with everything under it "
                "(repeat for several).",
    "tree": "Drain the whole tree of this provider (uuid or name; repeat for several).",
    "aggregate": "Drain every tree with a provider in this aggregate (uuid).",
    "required": "Traits every target root must have, comma-separated.",
    "target_aggregate": "Only trees with a provider in this aggregate receive (uuid).",
    "fullest": "How many of the fullest providers after the move to list (default 10, "
               "at most 1000).",
}
_REPEATABLE = {"provider", "tree"}

_AMOUNTS = {"type": "object", "properties": {
    "uuid": {"type": "string"}, "name": {"type": "string"},
    "resources": {"type": "object", "additionalProperties": {"type": "integer"}}}}
_MOVE = {
    "type": "object",
    "properties": {
        "consumer": {"type": "string"},
        "project": {"type": "string"},
        "holds": {"type": "array", "items": _AMOUNTS},
        "to": {"type": "array", "items": _AMOUNTS},
        "reason": {"type": ["object", "null"], "properties": {
            "kind": {"type": "string", "enum": sorted(drain.REASONS)},
            "resource_class": {"type": ["string", "null"]},
            "trees": {"type": "integer"},
            "text": {"type": "string"}}},
    },
    "required": ["consumer", "project", "holds", "to", "reason"],
}
DRAIN_RESPONSE = {
    "type": "object",
    "properties": {
        "fits": {"type": "boolean"},
        "drained": {"type": "array", "items": {"type": "object", "properties": {
            "uuid": {"type": "string"}, "name": {"type": "string"}}}},
        "consumers": {"type": "integer"},
        "placed": {"type": "array", "items": _MOVE},
        "not_placed": {"type": "array", "items": _MOVE},
        "fullest_after": {"type": "array", "items": {"type": "object", "properties": {
            "uuid": {"type": "string"}, "name": {"type": "string"},
            "resource_class": {"type": "string"}, "used_before": {"type": "integer"},
            "used": {"type": "integer"}, "capacity": {"type": "integer"},
            "percent": {"type": "number"}}}},
        "targets": {"type": "integer"},
        "took_ms": {"type": "number"},
    },
    "required": ["fits", "drained", "consumers", "placed", "not_placed", "fullest_after",
                 "targets", "took_ms"],
}


def _check_parameters(query, known):
    reject_nul(query)
    unknown = sorted(set(query.keys()) - set(known))
    if unknown:
        raise errors.BadRequest(
            f"Invalid query string parameters: unknown parameter(s) {', '.join(unknown)}; "
            f"expected {', '.join(sorted(known))}.")
    for key in query.keys():
        if key not in _REPEATABLE and len(query.getlist(key)) > 1:
            raise errors.BadRequest(f"Invalid query string parameters: {key} given twice.")


def _whole_number(query, key, default, high):
    text = query.get(key)
    if text is None:
        return default
    if not text.isdigit() or not 0 <= int(text) <= high:
        raise errors.BadRequest(
            f"Invalid query string parameters: {key} must be a whole number from 0 to {high}.")
    return int(text)


def drain_arguments(query) -> dict:
    """The keyword arguments of drain.drain from a query (400 on bad input);
    the console's drain page reads its form with it too."""
    _check_parameters(query, _DRAIN_PARAMETERS)
    required = [t.strip() for t in (query.get("required") or "").split(",") if t.strip()]
    missing = sorted(set(required) - set(
        Trait.objects.filter(name__in=required).values_list("name", flat=True)))
    if missing:
        raise errors.BadRequest(f"No such trait(s): {', '.join(missing)}.")
    return {
        "providers": [v.strip() for v in query.getlist("provider") if v.strip()],
        "trees": [v.strip() for v in query.getlist("tree") if v.strip()],
        "aggregate": (query.get("aggregate") or "").strip() or None,
        "required": required,
        "target_aggregate": (query.get("target_aggregate") or "").strip() or None,
        "fullest": _whole_number(query, "fullest", drain.FULLEST, 1000),
    }


class DrainView(PlacementView):
    @extend_schema(
        summary="Drain what-if",
        description=(
            "Would the consumers holding resources on these providers fit on the rest of "
            "the cloud as it is now? Simulates moving each consumer, largest first, with "
            "what it holds and in the same shape (root to root, child to a child of the "
            "same resource classes and custom traits, sharing providers kept or replaced "
            "by a reachable one), honouring capacity, reserved, allocation ratios, "
            "min_unit, max_unit, step_size and COMPUTE_STATUS_DISABLED. Writes nothing. "
            "Not part of upstream Placement."),
        parameters=[OpenApiParameter(name, str, description=text, required=False,
                                     many=name in _REPEATABLE)
                    for name, text in _DRAIN_PARAMETERS.items()],
        request=None,
        responses={
            200: OpenApiResponse(response=DRAIN_RESPONSE,
                                 description="The verdict, each consumer's move or why it "
                                             "does not fit, and the fullest providers after."),
            400: error_response("Nothing named, an unknown provider, aggregate or trait, "
                                "or a bad parameter."),
        },
        tags=["planning"],
    )
    def get(self, request):
        authorize(request, "placement:planning:drain")
        return json_response(drain.drain(**drain_arguments(request.GET)).as_dict())
