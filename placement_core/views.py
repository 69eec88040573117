"""GET /: the version document (no authentication needed)."""
from drf_spectacular.utils import OpenApiResponse, extend_schema

from placement_core import microversion
from placement_core.api import PlacementView, error_response, json_response

VERSIONS_SCHEMA = {
    "type": "object",
    "properties": {
        "versions": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "example": "v1.0"},
                    "min_version": {"type": "string", "example": "1.0"},
                    "max_version": {"type": "string", "example": "1.39"},
                    "status": {"type": "string", "example": "CURRENT"},
                    "links": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"rel": {"type": "string"}, "href": {"type": "string"}},
                        },
                    },
                },
                "required": ["id", "min_version", "max_version", "status", "links"],
            },
        }
    },
    "required": ["versions"],
}


class RootView(PlacementView):
    @extend_schema(
        summary="List API versions",
        description="The microversion range this service supports. Needs no token.",
        auth=[],
        request=None,
        responses={
            200: OpenApiResponse(response=VERSIONS_SCHEMA, description="The version document."),
            406: error_response("Unsupported microversion requested."),
        },
    )
    def get(self, request):
        return json_response(
            {
                "versions": [
                    {
                        "id": "v1.0",
                        "max_version": str(microversion.MAX_VERSION),
                        "min_version": str(microversion.MIN_VERSION),
                        "status": "CURRENT",
                        "links": [{"rel": "self", "href": ""}],
                    }
                ]
            }
        )
