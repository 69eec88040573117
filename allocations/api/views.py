"""HTTP views of allocations and usages.

- ``POST /allocations`` (1.13+)
- ``GET|PUT|DELETE /allocations/{consumer_uuid}``
- ``GET /resource_providers/{uuid}/allocations``
- ``GET /resource_providers/{uuid}/usages``
- ``GET /usages`` (1.9+)
"""
from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from allocations import selectors, services, signals
from allocations.api import schemas
from placement_core import errors
from placement_core.api import (
    PlacementView,
    empty_response,
    error_response,
    json_body,
    json_response,
    validate,
    versioned,
)
from placement_core.policy import authorize
from placement_core.querystring import last_values, validate_query
from placement_core.replica import bulk_read
from placement_core.uuids import normalize_uuid


def _consumer_uuid(raw):
    """The canonical consumer uuid of a path or body key; 400 when it is not a uuid."""
    value = normalize_uuid(raw)
    if value is None:
        raise errors.BadRequest(f"Malformed consumer_uuid: {raw}")
    return value


def _consumer_request(consumer_uuid, data, mv):
    """A services.ConsumerAllocations from a validated 1.12+ style consumer body."""
    allocations = {
        provider_uuid: dict(entry["resources"])
        for provider_uuid, entry in data["allocations"].items()
    }
    return services.ConsumerAllocations(
        uuid=consumer_uuid,
        allocations=allocations,
        project_id=data.get("project_id"),
        user_id=data.get("user_id"),
        generation=data.get("consumer_generation") if mv >= (1, 28) else services.UNSET,
        consumer_type=data.get("consumer_type") if mv >= (1, 38) else None,
    )


def _replace(request, requests):
    """services.allocations_replace; a refusal for capacity is announced
    (signals.claim_refused) before it becomes the 409."""
    try:
        services.allocations_replace(requests=requests)
    except services.CapacityRefused as exc:
        signals.claim_refused.send(sender=services.CapacityRefused, request=request,
                                   refusal=exc.refusal)
        raise


class AllocationsView(PlacementView):
    @extend_schema(
        summary="Set allocations of many consumers",
        description="Sets or clears (empty `allocations`) the allocations of every consumer "
        "in the body in one transaction: all of them change, or none (microversion 1.13+).",
        request={"application/json": schemas.POST_ALLOCATIONS_1_38},
        responses={
            204: OpenApiResponse(description="All allocations written."),
            400: error_response("Invalid body, unknown provider or resource class."),
            403: error_response("Policy does not allow managing allocations."),
            404: error_response("Microversion below 1.13."),
            409: error_response("No inventory, capacity exceeded, or a consumer or provider changed "
                        "concurrently (`placement.concurrent_update`)."),
        },
    )
    @versioned("1.13")
    def post(self, request):
        authorize(request, "placement:allocations:manage")
        mv = request.placement_mv
        data = json_body(request)
        # Counted before validation: checking 100,000 consumers against the
        # schema would already hold the worker for seconds.
        limit = settings.PLACEMENT_MAX_CONSUMERS_PER_REQUEST
        if isinstance(data, dict) and len(data) > limit:
            raise errors.BadRequest(
                f"A request may name at most {limit} consumers; this one names {len(data)}. "
                "Send them in several requests, or raise [placement] max_consumers_per_request."
            )
        validate(data, schemas.post_allocations_schema(mv))
        requests = [
            _consumer_request(_consumer_uuid(key), body, mv) for key, body in data.items()
        ]
        _replace(request, requests)
        return empty_response(204)


class ConsumerAllocationsView(PlacementView):
    @extend_schema(
        summary="Show a consumer's allocations",
        description="Allocations by provider uuid; `project_id`/`user_id` from 1.12, "
        "`consumer_generation` from 1.28, `consumer_type` from 1.38. A consumer without "
        "allocations gives `{\"allocations\": {}}`.",
        responses={
            200: OpenApiResponse(response=schemas.CONSUMER_ALLOCATIONS,
                                 description="The consumer's allocations."),
            403: error_response("Policy does not allow listing allocations."),
        },
    )
    def get(self, request, consumer_uuid):
        authorize(request, "placement:allocations:list")
        mv = request.placement_mv
        consumer_uuid = normalize_uuid(consumer_uuid) or consumer_uuid
        view = selectors.consumer_allocations(consumer_uuid=consumer_uuid)
        body = {"allocations": view.allocations}
        if view.exists:
            if mv >= (1, 12):
                body["project_id"] = view.project_id
                body["user_id"] = view.user_id
            if mv >= (1, 28):
                body["consumer_generation"] = view.generation
            if mv >= (1, 38):
                body["consumer_type"] = view.consumer_type
        return json_response(body, last_modified=view.last_modified)

    @extend_schema(
        summary="Replace a consumer's allocations",
        description="List body up to 1.11, object keyed by provider uuid from 1.12; "
        "`project_id`/`user_id` required from 1.8, `consumer_generation` from 1.28 "
        "(`null` for a new consumer; `{}` allocations then remove them all), "
        "`consumer_type` from 1.38.",
        request={"application/json": schemas.PUT_ALLOCATIONS_1_38},
        responses={
            204: OpenApiResponse(description="Allocations written."),
            400: error_response("Invalid body or consumer uuid, unknown provider or resource class."),
            403: error_response("Policy does not allow updating allocations."),
            409: error_response("No inventory, constraints violated, capacity exceeded, or a consumer "
                        "or provider changed concurrently (`placement.concurrent_update`)."),
        },
    )
    def put(self, request, consumer_uuid):
        authorize(request, "placement:allocations:update")
        mv = request.placement_mv
        consumer_uuid = _consumer_uuid(consumer_uuid)
        data = json_body(request, schemas.put_allocations_schema(mv))
        if mv < (1, 12):
            by_provider = {}
            for entry in data["allocations"]:
                by_provider.setdefault(entry["resource_provider"]["uuid"], {}).update(
                    entry["resources"]
                )
            data = dict(data, allocations={k: {"resources": v} for k, v in by_provider.items()})
        _replace(request, [_consumer_request(consumer_uuid, data, mv)])
        return empty_response(204)

    @extend_schema(
        summary="Delete a consumer's allocations",
        responses={
            204: OpenApiResponse(description="Allocations (and the consumer) removed."),
            403: error_response("Policy does not allow deleting allocations."),
            404: error_response("The consumer has no allocations."),
        },
    )
    def delete(self, request, consumer_uuid):
        authorize(request, "placement:allocations:delete")
        consumer_uuid = normalize_uuid(consumer_uuid) or consumer_uuid
        services.allocations_delete(consumer_uuid=consumer_uuid)
        return empty_response(204)


class ProviderAllocationsView(PlacementView):
    @extend_schema(
        summary="List a provider's allocations",
        description="Allocations on the provider keyed by consumer uuid (each with its "
        "`consumer_generation` from 1.28), with the provider's generation.",
        responses={
            200: OpenApiResponse(response=schemas.PROVIDER_ALLOCATIONS,
                                 description="The provider's allocations."),
            403: error_response("Policy does not allow listing provider allocations."),
            404: error_response("No such resource provider."),
        },
    )
    def get(self, request, uuid):
        authorize(request, "placement:resource_providers:allocations:list")
        generation, allocations, changed = selectors.provider_allocations(
            provider_uuid=uuid, with_generations=request.placement_mv >= (1, 28))
        return json_response(
            {"allocations": allocations, "resource_provider_generation": generation},
            last_modified=changed,
        )


class ProviderUsagesView(PlacementView):
    @extend_schema(
        summary="Show a provider's usages",
        description="The amount allocated of each resource class the provider has inventory "
        "of (0 when unused).",
        responses={
            200: OpenApiResponse(response=schemas.PROVIDER_USAGES,
                                 description="The provider's usages."),
            403: error_response("Policy does not allow showing provider usages."),
            404: error_response("No such resource provider."),
        },
    )
    @bulk_read
    def get(self, request, uuid):
        authorize(request, "placement:resource_providers:usages")
        provider, usages = selectors.provider_usages(provider_uuid=uuid)
        return json_response(
            {"usages": usages, "resource_provider_generation": provider.generation}
        )


_USAGE_PARAMETERS = [
    OpenApiParameter("project_id", OpenApiTypes.STR, required=True),
    OpenApiParameter("user_id", OpenApiTypes.STR),
    OpenApiParameter("consumer_type", OpenApiTypes.STR,
                     description="1.38+: a consumer type, `unknown` (no type) or `all`."),
]


class UsagesView(PlacementView):
    @extend_schema(
        summary="Show a project's (or user's) usages",
        description="Sum of allocations of the project's consumers (microversion 1.9+); "
        "grouped by consumer type with a `consumer_count` from 1.38.",
        parameters=_USAGE_PARAMETERS,
        responses={
            200: OpenApiResponse(response=schemas.USAGES, description="The usages."),
            400: error_response("Missing project_id or invalid query parameters."),
            403: error_response("Policy does not allow showing usages."),
            404: error_response("Microversion below 1.9."),
        },
    )
    @versioned("1.9")
    @bulk_read
    def get(self, request):
        mv = request.placement_mv
        query = last_values(request.GET)
        authorize(request, "placement:usages", target={"project_id": query.get("project_id")})
        validate_query(query, schemas.usages_query_schema(mv))
        usages = selectors.usages_by_project(
            project_id=query["project_id"],
            user_id=query.get("user_id"),
            consumer_type=query.get("consumer_type"),
            by_consumer_type=mv >= (1, 38),
        )
        return json_response({"usages": usages})
