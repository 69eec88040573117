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

from placement_core.api import PlacementView, error_response, json_response
from placement_core.policy import authorize
from planning import drain, failures, forecast

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
            "trees": {"type": "integer"}, "targets": {"type": "integer"},
            "label": {"type": "string"}, "most_free": {"type": ["integer", "null"]},
            "most_free_on": {"type": ["string", "null"]}, "others": {"type": "string"},
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
        parameters=[OpenApiParameter(name, int if name == "fullest" else str,
                                     description=text, required=False,
                                     many=name in drain.REPEATABLE)
                    for name, text in drain.PARAMETERS.items()],
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
        return json_response(drain.drain(**drain.arguments(request.GET)).as_dict())


_FORECAST_ROW = {"type": "object", "properties": {
    "aggregate": {"type": "string"}, "resource_class": {"type": "string"},
    "samples": {"type": "integer"}, "since": {"type": "string"},
    "used": {"type": "integer"}, "capacity": {"type": "integer"},
    "percent": {"type": ["number", "null"]},
    "trend_per_day": {"type": ["number", "null"]}, "r_squared": {"type": ["number", "null"]},
    "days_to_capacity": {"type": ["number", "null"]},
    "days_to_threshold": {"type": ["number", "null"]}}}
FORECAST_RESPONSE = {
    "type": "object",
    "properties": {
        "forecast": {"type": "object", "properties": {
            "method": {"type": "string"}, "window_days": {"type": "integer"},
            "threshold_percent": {"type": "integer"},
            "rows": {"type": "array", "items": _FORECAST_ROW}}},
        "stranded": {"type": "object", "additionalProperties": {"type": "object", "properties": {
            "amount": {"type": "integer"}, "providers": {"type": "integer"},
            "listed": {"type": "array", "items": {"type": "object", "properties": {
                "uuid": {"type": "string"}, "name": {"type": "string"},
                "free": {"type": "integer"}, "capacity": {"type": "integer"},
                "exhausted": {"type": "array", "items": {"type": "string"}}}}}}}},
        "stranded_shapes": {"type": "object", "properties": {
            "default": {"type": "boolean"},
            "flavors": {"type": "object", "additionalProperties": {"type": "string"}}}},
    },
    "required": ["forecast", "stranded"],
}


class ForecastView(PlacementView):
    @extend_schema(
        summary="Usage forecast and stranded capacity",
        description=(
            "Per resource class, for the whole cloud (aggregate \"\") and per aggregate: the "
            "trend of usage (a least-squares line over the window of usage snapshots) and the "
            "days until it reaches capacity and the threshold; and the stranded capacity, per "
            "class with the providers: free capacity that no known flavor (PLACEMENT_FLAVORS "
            "and the stored ones, or default shapes when there are none, named in "
            "stranded_shapes) can use in its tree with the sharing pools the tree reaches. "
            "Not part of upstream Placement."),
        parameters=[OpenApiParameter(name, str if name == "aggregate" else int,
                                     description=text, required=False)
                    for name, text in forecast.PARAMETERS.items()],
        request=None,
        responses={
            200: OpenApiResponse(response=FORECAST_RESPONSE,
                                 description="The forecast rows and the stranded capacity."),
            400: error_response("A bad parameter."),
        },
        tags=["planning"],
    )
    def get(self, request):
        authorize(request, "placement:planning:forecast")
        return json_response(forecast.report(**forecast.arguments(request.GET)))


_FAILURE = {"type": "object", "properties": {
    "id": {"type": "integer"}, "created_at": {"type": "string"},
    "kind": {"type": "string", "enum": list(failures.KINDS)},
    "reason": {"type": "string", "enum": list(failures.REASONS)},
    "summary": {"type": "string"}, "query": {"type": "string"},
    "query_truncated": {"type": "boolean"}, "microversion": {"type": "string"},
    "project_id": {"type": "string"}, "user_id": {"type": "string"},
    "request_id": {"type": "string"}, "global_request_id": {"type": "string"},
    "explanation": {"type": ["object", "null"]}}}
FAILURES_RESPONSE = {
    "type": "object",
    "properties": {
        "hours": {"type": "integer"}, "bucket_hours": {"type": "integer"},
        "since": {"type": "string"}, "total": {"type": "integer"},
        "by_reason": {"type": "array", "items": {"type": "object", "properties": {
            "kind": {"type": "string"}, "reason": {"type": "string"},
            "count": {"type": "integer"}, "last": {"type": "string"},
            "trend": {"type": "array", "items": {"type": "integer"}}}}},
        "failures": {"type": "array", "items": _FAILURE},
    },
    "required": ["hours", "bucket_hours", "since", "total", "by_reason", "failures"],
}


class FailuresView(PlacementView):
    @extend_schema(
        summary="Recorded scheduling failures",
        description=(
            "GET /allocation_candidates answers without candidates and claims refused for "
            "capacity, as recorded when they happened (with the explanation computed then): "
            "grouped by kind and reason with a trend, and the newest records. "
            "`global_request_id` finds the records of a Nova request (X-OpenStack-Request-ID) "
            "whatever their age. Not part of upstream Placement."),
        parameters=[OpenApiParameter(name, int if name in ("hours", "limit") else str,
                                     description=text, required=False)
                    for name, text in failures.PARAMETERS.items()],
        request=None,
        responses={
            200: OpenApiResponse(response=FAILURES_RESPONSE,
                                 description="Failures by reason and the newest records."),
            400: error_response("A bad parameter."),
        },
        tags=["planning"],
    )
    def get(self, request):
        authorize(request, "placement:planning:failures")
        return json_response(failures.report(**failures.arguments(request.GET)))
