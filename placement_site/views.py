"""GET /: the version document (no authentication needed)."""
from drf_spectacular.utils import extend_schema

from placement_site import microversion
from placement_site.api import PlacementView, json_response


class RootView(PlacementView):
    @extend_schema(summary="List API versions", auth=[])
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
