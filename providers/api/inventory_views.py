"""/resource_providers/{uuid}/inventories and /inventories/{resource_class}.

Thin views: policy, body schema, then ``providers.inventory_services`` (writes)
or ``providers.inventory_selectors`` (reads).
"""
from drf_spectacular.utils import OpenApiResponse, extend_schema

from placement_core.api import (
    PlacementView,
    empty_response,
    error_response,
    json_body,
    json_response,
    unvaried_404,
    versioned,
)
from placement_core.policy import authorize
from providers import inventory_selectors as selectors
from providers import inventory_services as services
from providers.api import inventory_schemas as schemas
from providers.selectors import provider_get

RESERVED_EQUALS_TOTAL = (1, 26)


def _record(inv) -> dict:
    return {
        "total": inv.total,
        "reserved": inv.reserved,
        "min_unit": inv.min_unit,
        "max_unit": inv.max_unit,
        "step_size": inv.step_size,
        "allocation_ratio": inv.allocation_ratio,
    }


def _list_body(provider, inventories) -> dict:
    return {
        "inventories": {inv.resource_class.name: _record(inv) for inv in inventories},
        "resource_provider_generation": provider.generation,
    }


def _one_body(provider, inv) -> dict:
    return {"resource_provider_generation": provider.generation, **_record(inv)}


def _reserved_may_equal_total(request) -> bool:
    return request.placement_mv >= RESERVED_EQUALS_TOTAL


class InventoriesView(PlacementView):
    """The whole set of a provider's inventories."""

    @extend_schema(
        summary="List resource provider inventories",
        operation_id="inventories_list",
        responses={
            200: OpenApiResponse(response=schemas.INVENTORIES_RESPONSE, description="The inventories"),
            404: error_response("No such resource provider"),
        },
    )
    def get(self, request, uuid):
        authorize(request, "placement:resource_providers:inventories:list")
        provider = provider_get(uuid=uuid, exact=True)
        rows, changed = selectors.inventory_list(provider=provider)
        return json_response(_list_body(provider, rows), last_modified=changed)

    @extend_schema(
        summary="Update resource provider inventories (replace the whole set)",
        operation_id="inventories_replace",
        request={"application/json": schemas.INVENTORIES_REPLACE},
        responses={
            200: OpenApiResponse(response=schemas.INVENTORIES_RESPONSE, description="The new set"),
            400: error_response("Invalid body, unknown class or bad capacity"),
            404: error_response("No such resource provider"),
            409: error_response("Generation conflict, or a removed class is in use"),
        },
    )
    @unvaried_404
    def put(self, request, uuid):
        authorize(request, "placement:resource_providers:inventories:update")
        provider_get(uuid=uuid, exact=True)
        data = json_body(request, schemas.INVENTORIES_REPLACE)
        specs = {
            name: services.InventorySpec.from_body(record)
            for name, record in data["inventories"].items()
        }
        provider, rows = services.inventories_replace(
            provider_uuid=uuid,
            generation=data["resource_provider_generation"],
            inventories=specs,
            reserved_may_equal_total=_reserved_may_equal_total(request),
        )
        return json_response(
            _list_body(provider, rows), last_modified=selectors.last_modified(rows),
        )

    @extend_schema(
        summary="Create one resource provider inventory",
        operation_id="inventory_create",
        request={"application/json": schemas.INVENTORY_CREATE},
        responses={
            201: OpenApiResponse(response=schemas.INVENTORY_RESPONSE, description="The new inventory"),
            400: error_response("Invalid body, unknown class or bad capacity"),
            404: error_response("No such resource provider"),
            409: error_response("The class already has inventory on this provider"),
        },
    )
    @unvaried_404
    def post(self, request, uuid):
        authorize(request, "placement:resource_providers:inventories:create")
        provider_get(uuid=uuid, exact=True)
        data = json_body(request, schemas.INVENTORY_CREATE)
        resource_class = data["resource_class"]
        provider, inv = services.inventory_create(
            provider_uuid=uuid,
            resource_class=resource_class,
            spec=services.InventorySpec.from_body(data),
            # A resource_provider_generation in the body is accepted and not
            # checked, as upstream: the provider row lock orders writers.
            reserved_may_equal_total=_reserved_may_equal_total(request),
        )
        location = request.build_absolute_uri(f"{request.path}/{resource_class}")
        return json_response(
            _one_body(provider, inv), status=201, last_modified=inv.updated_at,
            headers={"Location": location},
        )

    @extend_schema(
        summary="Delete all resource provider inventories (1.5+)",
        operation_id="inventories_delete",
        responses={
            204: OpenApiResponse(description="Deleted"),
            404: error_response("No such resource provider"),
            405: error_response("Before microversion 1.5"),
            409: error_response("Some inventory is in use"),
        },
    )
    @versioned("1.5", status=405)
    @unvaried_404
    def delete(self, request, uuid):
        authorize(request, "placement:resource_providers:inventories:delete")
        services.inventories_delete(provider_uuid=uuid)
        return empty_response(204)


class InventoryView(PlacementView):
    """One inventory record, by resource class."""

    @extend_schema(
        summary="Show resource provider inventory",
        operation_id="inventory_show",
        responses={
            200: OpenApiResponse(response=schemas.INVENTORY_RESPONSE, description="The inventory"),
            404: error_response("No such provider or no inventory of that class"),
        },
    )
    def get(self, request, uuid, resource_class):
        authorize(request, "placement:resource_providers:inventories:show")
        provider = provider_get(uuid=uuid, exact=True)
        inv = selectors.inventory_get(provider=provider, resource_class=resource_class)
        return json_response(_one_body(provider, inv), last_modified=inv.updated_at)

    @extend_schema(
        summary="Update resource provider inventory",
        operation_id="inventory_update",
        request={"application/json": schemas.INVENTORY_UPDATE},
        responses={
            200: OpenApiResponse(response=schemas.INVENTORY_RESPONSE, description="The inventory"),
            400: error_response("Invalid body, no such inventory, or bad capacity"),
            404: error_response("No such resource provider"),
            409: error_response("Generation conflict"),
        },
    )
    @unvaried_404
    def put(self, request, uuid, resource_class):
        authorize(request, "placement:resource_providers:inventories:update")
        provider_get(uuid=uuid, exact=True)
        data = json_body(request, schemas.INVENTORY_UPDATE)
        provider, inv = services.inventory_update(
            provider_uuid=uuid,
            resource_class=resource_class,
            generation=data["resource_provider_generation"],
            spec=services.InventorySpec.from_body(data),
            reserved_may_equal_total=_reserved_may_equal_total(request),
        )
        return json_response(_one_body(provider, inv), last_modified=inv.updated_at)

    @extend_schema(
        summary="Delete resource provider inventory",
        operation_id="inventory_delete",
        responses={
            204: OpenApiResponse(description="Deleted"),
            404: error_response("No such provider or no inventory of that class"),
            409: error_response("The inventory is in use"),
        },
    )
    def delete(self, request, uuid, resource_class):
        authorize(request, "placement:resource_providers:inventories:delete")
        services.inventory_delete(provider_uuid=uuid, resource_class=resource_class)
        return empty_response(204)
