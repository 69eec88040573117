"""HTTP views of the two catalogs.

- ``/resource_classes`` and ``/resource_classes/{name}`` (from 1.2)
- ``/traits`` and ``/traits/{name}`` (from 1.6)

The provider side (``/resource_providers/{uuid}/traits``) lives in providers.
"""
from email.utils import formatdate

from django.urls import get_script_prefix
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from placement_core import errors
from placement_core.api import (
    PlacementView,
    empty_response,
    error_response,
    json_body,
    json_response,
    require_json_content,
    unvaried_404,
    validate,
    versioned,
)
from placement_core.policy import authorize
from placement_core.querystring import last_values, validate_query
from resource_classes import selectors, services
from resource_classes.api import schemas


def _url(kind: str, name: str) -> str:
    """The relative URL of one catalog entry, under the script prefix."""
    return f"{get_script_prefix().rstrip('/')}/{kind}/{name}"


def _resource_class_body(rc) -> dict:
    return {
        "name": rc.name,
        "links": [{"rel": "self", "href": _url("resource_classes", rc.name)}],
    }


def _cache_headers(changed_at) -> dict:
    """Bodiless answers carry the cache headers themselves (the edge drops them before 1.15)."""
    return {
        "cache-control": "no-cache",
        "last-modified": formatdate(changed_at.timestamp(), usegmt=True),
    }


# --- resource classes ------------------------------------------------------


class ResourceClassListView(PlacementView):
    @extend_schema(
        operation_id="resource_classes_list",
        tags=["resource classes"],
        summary="List resource classes",
        description="Every resource class, standard and custom (microversion 1.2+).",
        responses={
            200: OpenApiResponse(response=schemas.RESOURCE_CLASS_LIST, description="The classes."),
            403: error_response("Policy does not allow listing resource classes."),
            404: error_response("Microversion below 1.2."),
        },
    )
    @versioned("1.2")
    def get(self, request):
        authorize(request, "placement:resource_classes:list")
        classes, changed_at = selectors.resource_class_list()
        return json_response(
            {"resource_classes": [_resource_class_body(rc) for rc in classes]},
            last_modified=changed_at,
        )

    @extend_schema(
        operation_id="resource_classes_create",
        tags=["resource classes"],
        summary="Create a custom resource class",
        description="The name must match `^CUSTOM_[A-Z0-9_]+$` (microversion 1.2+).",
        request={"application/json": schemas.RESOURCE_CLASS_NAME},
        responses={
            201: OpenApiResponse(description="Created; `Location` names the new class."),
            400: error_response("Invalid body or name."),
            403: error_response("Policy does not allow creating resource classes."),
            404: error_response("Microversion below 1.2."),
            409: error_response("A resource class with that name already exists."),
            415: error_response("The body is not application/json."),
        },
    )
    @versioned("1.2")
    def post(self, request):
        require_json_content(request)
        authorize(request, "placement:resource_classes:create")
        data = json_body(request, schemas.RESOURCE_CLASS_NAME)
        rc = services.resource_class_create(name=data["name"])
        return empty_response(201, headers={"Location": _url("resource_classes", rc.name)})


class ResourceClassDetailView(PlacementView):
    @extend_schema(
        operation_id="resource_class_show",
        tags=["resource classes"],
        summary="Show a resource class",
        responses={
            200: OpenApiResponse(response=schemas.RESOURCE_CLASS, description="The class."),
            403: error_response("Policy does not allow showing resource classes."),
            404: error_response("No such resource class, or microversion below 1.2."),
        },
    )
    @versioned("1.2")
    @unvaried_404
    def get(self, request, name):
        authorize(request, "placement:resource_classes:show")
        rc = selectors.resource_class_get(name=name)
        return json_response(
            _resource_class_body(rc), last_modified=rc.updated_at or rc.created_at
        )

    @extend_schema(
        operation_id="resource_class_update",
        tags=["resource classes"],
        summary="Create (1.7+) or rename (1.2-1.6) a custom resource class",
        description=(
            "From 1.7 the request has no body: the custom class `{name}` is created "
            "(201) or confirmed (204). From 1.2 to 1.6 the body `{\"name\": ...}` "
            "renames the custom class `{name}` and the answer is the renamed class."
        ),
        request={"application/json": schemas.RESOURCE_CLASS_NAME},
        responses={
            200: OpenApiResponse(
                response=schemas.RESOURCE_CLASS, description="Renamed (1.2 - 1.6)."
            ),
            201: OpenApiResponse(description="Created (1.7+); `Location` names it."),
            204: OpenApiResponse(description="Already existed (1.7+)."),
            400: error_response("Invalid name, or a standard class."),
            403: error_response("Policy does not allow updating resource classes."),
            404: error_response("No such resource class (1.2 - 1.6), or microversion below 1.2."),
            409: error_response("The new name is taken (1.2 - 1.6)."),
            415: error_response("The body is not application/json (1.2 - 1.6)."),
        },
    )
    @versioned("1.2")
    @unvaried_404
    def put(self, request, name):
        if request.placement_mv >= (1, 7):
            authorize(request, "placement:resource_classes:update")
            validate({"name": name}, schemas.RESOURCE_CLASS_NAME)
            rc, created = services.resource_class_ensure(name=name)
            return empty_response(
                201 if created else 204,
                headers={"Location": _url("resource_classes", rc.name)},
            )
        require_json_content(request)
        authorize(request, "placement:resource_classes:update")
        data = json_body(request, schemas.RESOURCE_CLASS_NAME)
        rc = services.resource_class_rename(name=name, new_name=data["name"])
        return json_response(
            _resource_class_body(rc), last_modified=rc.updated_at or rc.created_at
        )

    @extend_schema(
        operation_id="resource_class_delete",
        tags=["resource classes"],
        summary="Delete a custom resource class",
        responses={
            204: OpenApiResponse(description="Deleted."),
            400: error_response("Standard classes cannot be deleted."),
            403: error_response("Policy does not allow deleting resource classes."),
            404: error_response("No such resource class, or microversion below 1.2."),
            409: error_response("Inventories or allocations use the class."),
        },
    )
    @versioned("1.2")
    @unvaried_404
    def delete(self, request, name):
        authorize(request, "placement:resource_classes:delete")
        services.resource_class_delete(name=name)
        return empty_response(204)


# --- traits ----------------------------------------------------------------

BAD_NAME_FILTER = (
    "Badly formatted name parameter. Expected name query string parameter in form: "
    "?name=[in|startswith]:[name1,name2|prefix]. Got: \"{value}\""
)


def _trait_filters(request) -> dict:
    """The keyword arguments of selectors.trait_list from the query string."""
    query = validate_query(last_values(request.GET), schemas.TRAIT_LIST_QUERY)
    filters = {}
    if "name" in query:
        value = query["name"]
        if value.startswith("in:"):
            filters["names"] = value[len("in:"):].split(",")
        elif value.startswith("startswith:"):
            filters["prefix"] = value[len("startswith:"):]
        else:
            raise errors.BadRequest(BAD_NAME_FILTER.format(value=value))
    if "associated" in query:
        value = query["associated"].lower()
        if value not in ("true", "false"):
            raise errors.BadRequest(
                'The query parameter "associated" only accepts "true" or "false"'
            )
        filters["associated"] = value == "true"
    return filters


class TraitListView(PlacementView):
    @extend_schema(
        operation_id="traits_list",
        tags=["traits"],
        summary="List traits",
        description="Trait names, optionally filtered (microversion 1.6+).",
        parameters=[
            OpenApiParameter(
                "name",
                OpenApiTypes.STR,
                description="`in:NAME1,NAME2` (exactly these) or `startswith:PREFIX`.",
            ),
            OpenApiParameter(
                "associated",
                OpenApiTypes.STR,
                enum=["true", "false"],
                description="Only traits some provider has (`true`) or none has (`false`).",
            ),
        ],
        responses={
            200: OpenApiResponse(response=schemas.TRAIT_LIST, description="The trait names."),
            400: error_response("Unknown or badly formed query parameter."),
            403: error_response("Policy does not allow listing traits."),
            404: error_response("Microversion below 1.6."),
        },
    )
    @versioned("1.6")
    def get(self, request):
        authorize(request, "placement:traits:list")
        filters = _trait_filters(request)
        names, changed_at = selectors.trait_list(**filters)
        return json_response({"traits": names}, last_modified=changed_at)


class TraitDetailView(PlacementView):
    @extend_schema(
        operation_id="trait_show",
        tags=["traits"],
        summary="Check that a trait exists",
        responses={
            204: OpenApiResponse(description="The trait exists."),
            403: error_response("Policy does not allow showing traits."),
            404: error_response("No such trait, or microversion below 1.6."),
        },
    )
    @versioned("1.6")
    def get(self, request, name):
        authorize(request, "placement:traits:show")
        trait = selectors.trait_get(name=name)
        return empty_response(204, headers=_cache_headers(trait.updated_at or trait.created_at))

    @extend_schema(
        operation_id="trait_update",
        tags=["traits"],
        summary="Create a custom trait",
        description="Creates `{name}` (201) or confirms it exists (204); no request body.",
        request=None,
        responses={
            201: OpenApiResponse(description="Created; `Location` names the trait."),
            204: OpenApiResponse(description="Already existed."),
            400: error_response("The name is not a valid custom trait name."),
            403: error_response("Policy does not allow creating traits."),
            404: error_response("Microversion below 1.6."),
        },
    )
    @versioned("1.6")
    def put(self, request, name):
        authorize(request, "placement:traits:update")
        trait, created = services.trait_ensure(name=name)
        headers = {"Location": _url("traits", trait.name)}
        headers.update(_cache_headers(trait.updated_at or trait.created_at))
        return empty_response(201 if created else 204, headers=headers)

    @extend_schema(
        operation_id="trait_delete",
        tags=["traits"],
        summary="Delete a custom trait",
        responses={
            204: OpenApiResponse(description="Deleted."),
            400: error_response("Standard traits cannot be deleted."),
            403: error_response("Policy does not allow deleting traits."),
            404: error_response("No such trait, or microversion below 1.6."),
            409: error_response("A resource provider has the trait."),
        },
    )
    @versioned("1.6")
    def delete(self, request, name):
        authorize(request, "placement:traits:delete")
        services.trait_delete(name=name)
        return empty_response(204)
