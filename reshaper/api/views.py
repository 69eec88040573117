"""POST /reshaper (microversion 1.30+): move inventories and allocations in one step."""
from drf_spectacular.utils import OpenApiResponse, extend_schema

from allocations.services import ConsumerAllocations
from placement_core.api import PlacementView, empty_response, error_response, json_body, versioned
from placement_core.policy import authorize
from providers.inventory_services import InventorySpec
from reshaper import services
from reshaper.api import schemas


def _inventories(data: dict) -> list[services.ProviderInventories]:
    return [
        services.ProviderInventories(
            provider_uuid=provider_uuid,
            generation=entry["resource_provider_generation"],
            inventories={
                name: InventorySpec.from_body(record)
                for name, record in entry["inventories"].items()
            },
        )
        for provider_uuid, entry in data.items()
    ]


def _allocations(data: dict, with_type: bool) -> list[ConsumerAllocations]:
    return [
        ConsumerAllocations(
            uuid=consumer_uuid,
            allocations={
                provider_uuid: dict(held["resources"])
                for provider_uuid, held in entry["allocations"].items()
            },
            project_id=entry["project_id"],
            user_id=entry["user_id"],
            generation=entry["consumer_generation"],
            consumer_type=entry["consumer_type"] if with_type else None,
        )
        for consumer_uuid, entry in data.items()
    ]


class ReshaperView(PlacementView):
    @extend_schema(
        operation_id="reshape",
        tags=["reshaper"],
        summary="Reshape provider inventories and allocations",
        description=(
            "Replace the inventories of the named providers and the allocations of the "
            "named consumers in one transaction (microversion 1.30+; `mappings` accepted "
            "from 1.34, `consumer_type` required from 1.38). Capacity and unit constraints "
            "are checked against the final state only."
        ),
        request={"application/json": schemas.RESHAPE_1_38},
        responses={
            204: OpenApiResponse(description="Everything was moved."),
            400: error_response(
                "Invalid body, unknown resource provider or resource class, or an unusable "
                "inventory record."
            ),
            403: error_response("Policy does not allow reshaping."),
            404: error_response("Microversion below 1.30."),
            409: error_response(
                "A stale provider or consumer generation, an allocation the final "
                "inventories cannot hold, or allocations left on a removed inventory."
            ),
        },
    )
    @versioned("1.30")
    def post(self, request):
        authorize(request, "placement:reshaper:reshape")
        data = json_body(request, schemas.reshape_schema(request.placement_mv))
        services.reshape(
            inventories=_inventories(data["inventories"]),
            allocations=_allocations(data["allocations"], request.placement_mv >= (1, 38)),
        )
        return empty_response(204)
