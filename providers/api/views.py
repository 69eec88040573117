"""HTTP views: /resource_providers, one provider, its aggregates and its traits.

Thin: parse, authorize, call a service or selector, render by microversion.
"""
import json

from django.conf import settings
from django.http import HttpResponse
from django.urls import get_script_prefix
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from placement_core.api import (
    PlacementView,
    empty_response,
    error_response,
    json_body,
    json_response,
    require_json_content,
    validate,
    unvaried_404,
    versioned,
)
from placement_core import errors
from placement_core.policy import authorize
from placement_core.querystring import last_values, reject_nul, validate_query
from placement_core.replica import bulk_read
from providers import selectors, services
from providers.api import schemas
from providers.filters import ResourceProviderFilterSet


_LINK_RELS = (
    ((1, 0), "self", ""),
    ((1, 0), "inventories", "/inventories"),
    ((1, 0), "usages", "/usages"),
    ((1, 1), "aggregates", "/aggregates"),
    ((1, 6), "traits", "/traits"),
    ((1, 11), "allocations", "/allocations"),
)


def _link_rels(mv):
    """(rel, path suffix) pairs of a provider's links at ``mv``."""
    return [(rel, tail) for since, rel, tail in _LINK_RELS if mv >= since]


def _links(uuid, mv):
    base = f"{get_script_prefix().rstrip('/')}/resource_providers/{uuid}"
    return [{"rel": rel, "href": base + tail} for rel, tail in _link_rels(mv)]


def render_provider(row, mv):
    """A provider's JSON body from a selectors.PROVIDER_COLUMNS row."""
    body = {
        "uuid": row["uuid"],
        "name": row["name"],
        "generation": row["generation"],
        "links": _links(row["uuid"], mv),
    }
    if mv >= (1, 14):
        body["parent_provider_uuid"] = row["parent__uuid"]
        body["root_provider_uuid"] = row["root__uuid"]
    return body


_encode_str = json.encoder.encode_basestring_ascii  # what json.dumps uses for str
_UUID_MARK = "\x00uuid\x00"


def _provider_list_json(listed, mv):
    """``json.dumps({"resource_providers": [render_provider(row, mv) ...]})``
    of ``selectors.provider_list_rows``' answer, byte for byte, without
    building the dicts: every provider's links differ only by its uuid, so
    they are one pre-encoded template split where the uuid goes, and joined
    around each provider's; each uuid is encoded once, though it shows as
    a provider's own and as others' parent or root. (JSON string escaping
    works character by character, so encoding the pieces and joining them
    gives the encoding of the joined string.)"""
    rows, uuid_of = listed
    prefix = f"{get_script_prefix().rstrip('/')}/resource_providers/"
    links = json.dumps(
        [{"rel": rel, "href": _UUID_MARK + tail} for rel, tail in _link_rels(mv)]
    )
    pieces = links.split(_encode_str(_UUID_MARK)[1:-1])
    encoded_prefix = _encode_str(prefix)[1:-1]
    encode = _encode_str
    encoded = {pk: encode(uuid) for pk, uuid in uuid_of.items()}
    tree = mv >= (1, 14)
    # One flat list of pieces joined once at the end: building each
    # provider's text first would copy its links (most of its bytes) twice.
    out = []
    extend = out.extend
    for pk, _, name, generation, parent, root in rows:
        # Each field encoded inline, not through a helper: a call per field
        # was a third of the time here. Names and generations are NOT NULL
        # columns, the generation an integer.
        encoded_uuid = encoded[pk]
        extend(('{"uuid": ', encoded_uuid, ', "name": ', encode(name),
                ', "generation": ', str(generation), ', "links": ',
                (encoded_prefix + encoded_uuid[1:-1]).join(pieces)))
        if tree:
            extend((', "parent_provider_uuid": ', "null" if parent is None else encoded[parent],
                    ', "root_provider_uuid": ', "null" if root is None else encoded[root]))
        out.append("}, ")
    if out:
        out[-1] = "}"
    return '{"resource_providers": [' + "".join(out) + "]}"


def _provider_body(uuid, mv):
    return render_provider(selectors.provider_row(uuid=uuid), mv)


def _location(request, uuid):
    return request.build_absolute_uri(f"{get_script_prefix().rstrip('/')}/resource_providers/{uuid}")


def _list_filterset(request, mv):
    """GET /resource_providers: check the query string, then its FilterSet.

    Here: NUL bytes and which parameters exist at ``mv`` (the query schema).
    The FilterSet parses the ``member_of`` / ``required`` / ``resources``
    forms at ``mv`` and raises the first error when its ``qs`` is read.
    """
    query = request.GET
    reject_nul(query)
    validate_query(last_values(query), schemas.query_schema_for(mv))
    return ResourceProviderFilterSet(query, microversion=mv)


_ERRORS = {
    400: error_response("Bad request: invalid body or query string."),
    403: error_response("Forbidden by policy."),
    404: error_response("No such resource provider (or not at this microversion)."),
    409: error_response("Conflict: duplicate, in use, or generation mismatch."),
}


_LIST_PARAMETERS = [
    OpenApiParameter("name", str, description="Exact provider name."),
    OpenApiParameter("uuid", str, description="Exact provider uuid."),
    OpenApiParameter(
        "member_of", str, many=True,
        description="Aggregate uuid, `in:` list (any of), `!` forbidden (1.32+); "
        "repeatable from 1.24 (all of). 1.3+.",
    ),
    OpenApiParameter("resources", str, description="`RC:N,RC2:M` capacity filter. 1.4+."),
    OpenApiParameter("in_tree", str, description="Providers in the tree of this uuid. 1.14+."),
    OpenApiParameter(
        "required", str, many=True,
        description="Traits, `!TRAIT` forbidden (1.22+), `in:A,B` any of and repeatable "
        "(1.39+). 1.18+.",
    ),
]


class ResourceProviderListView(PlacementView):
    """/resource_providers: the filtered list, and creation."""

    @extend_schema(
        summary="List resource providers",
        operation_id="resource_providers_list",
        parameters=_LIST_PARAMETERS,
        responses={200: OpenApiResponse(response=schemas.PROVIDER_LIST, description="Providers"),
                   400: _ERRORS[400], 403: _ERRORS[403]},
    )
    @bulk_read
    def get(self, request):
        authorize(request, "placement:resource_providers:list")
        mv = self.mv
        # No query string, nothing to filter: the FilterSet's form building
        # and validation (about 1 ms, a tenth of listing 1,000 providers)
        # would only hand back every provider.
        listed = selectors.provider_list_rows(
            _list_filterset(request, mv).qs if request.GET else None)
        return HttpResponse(_provider_list_json(listed, mv), content_type="application/json")

    @extend_schema(
        summary="Create resource provider",
        request={"application/json": schemas.CREATE_1_14},
        responses={
            200: OpenApiResponse(response=schemas.PROVIDER, description="Created (1.20+)"),
            201: OpenApiResponse(description="Created (before 1.20), Location header"),
            400: _ERRORS[400],
            403: _ERRORS[403],
            409: _ERRORS[409],
        },
    )
    def post(self, request):
        authorize(request, "placement:resource_providers:create")
        mv = self.mv
        data = json_body(request, schemas.create_schema(mv))
        provider = services.provider_create(
            name=data["name"],
            uuid=data.get("uuid"),
            parent_provider_uuid=data.get("parent_provider_uuid"),
        )
        headers = {"Location": _location(request, provider.uuid)}
        if mv >= (1, 20):
            return json_response(_provider_body(provider.uuid, mv), headers=headers)
        return empty_response(201, headers=headers)


class ResourceProviderDetailView(PlacementView):
    """/resource_providers/{uuid}: show, rename or move in a tree, delete."""

    @extend_schema(
        summary="Show resource provider",
        responses={200: OpenApiResponse(response=schemas.PROVIDER, description="The provider"),
                   403: _ERRORS[403], 404: _ERRORS[404]},
    )
    @unvaried_404
    def get(self, request, uuid):
        authorize(request, "placement:resource_providers:show")
        return json_response(_provider_body(uuid, self.mv))

    @extend_schema(
        summary="Update resource provider",
        request={"application/json": schemas.UPDATE_1_14},
        responses={200: OpenApiResponse(response=schemas.PROVIDER, description="The provider"),
                   400: _ERRORS[400], 403: _ERRORS[403], 404: _ERRORS[404], 409: _ERRORS[409]},
    )
    @unvaried_404
    def put(self, request, uuid):
        authorize(request, "placement:resource_providers:update")
        mv = self.mv
        # As upstream: media type (415), then the provider (404), then the body (400).
        require_json_content(request)
        selectors.provider_get(uuid=uuid)
        data = json_body(request, schemas.update_schema(mv))
        provider = services.provider_update(
            uuid=uuid,
            name=data["name"],
            parent_provider_uuid=data.get("parent_provider_uuid", services.UNSET),
            allow_reparenting=mv >= (1, 37),
        )
        return json_response(_provider_body(provider.uuid, mv))

    @extend_schema(
        summary="Delete resource provider",
        responses={204: OpenApiResponse(description="Deleted"), 403: _ERRORS[403],
                   404: _ERRORS[404], 409: _ERRORS[409]},
    )
    def delete(self, request, uuid):
        authorize(request, "placement:resource_providers:delete")
        services.provider_delete(uuid=uuid)
        return empty_response(204)


class ResourceProviderAggregatesView(PlacementView):
    """/resource_providers/{uuid}/aggregates (1.1+)."""

    def _render(self, provider, aggregate_uuids):
        body = {"aggregates": aggregate_uuids}
        if self.mv >= (1, 19):
            body["resource_provider_generation"] = provider.generation
        return json_response(body)

    @extend_schema(
        summary="List resource provider aggregates",
        responses={200: OpenApiResponse(response=schemas.AGGREGATES_RESPONSE,
                                        description="Aggregate uuids"),
                   403: _ERRORS[403], 404: _ERRORS[404]},
    )
    @versioned("1.1")
    @unvaried_404
    def get(self, request, uuid):
        authorize(request, "placement:resource_providers:aggregates:list")
        provider = selectors.provider_get(uuid=uuid)
        return self._render(provider, selectors.provider_aggregate_uuids(provider.pk))

    @extend_schema(
        summary="Update resource provider aggregates",
        request={"application/json": schemas.AGGREGATES_PUT_1_19},
        responses={200: OpenApiResponse(response=schemas.AGGREGATES_RESPONSE,
                                        description="Aggregate uuids"),
                   400: _ERRORS[400], 403: _ERRORS[403], 404: _ERRORS[404], 409: _ERRORS[409]},
    )
    @versioned("1.1")
    @unvaried_404
    def put(self, request, uuid):
        authorize(request, "placement:resource_providers:aggregates:update")
        mv = self.mv
        require_json_content(request)
        selectors.provider_get(uuid=uuid)
        data = json_body(request)
        # Counted before validation, as POST /allocations counts consumers.
        listed = data.get("aggregates") if isinstance(data, dict) else data
        limit = settings.PLACEMENT_MAX_AGGREGATES_PER_REQUEST
        if isinstance(listed, list) and len(listed) > limit:
            raise errors.BadRequest(
                f"A provider may be given at most {limit} aggregates; this one names "
                f"{len(listed)}. Raise [placement] max_aggregates_per_request for more.")
        validate(data, schemas.aggregates_put_schema(mv))
        if mv >= (1, 19):
            aggregates, generation = data["aggregates"], data["resource_provider_generation"]
        else:
            aggregates, generation = data, None
        provider = services.provider_aggregates_set(
            uuid=uuid, aggregate_uuids=aggregates, generation=generation, bump=mv >= (1, 19)
        )
        return self._render(provider, list(aggregates))


class ResourceProviderTraitsView(PlacementView):
    """/resource_providers/{uuid}/traits (1.6+)."""

    @staticmethod
    def _render(provider, names):
        return json_response(
            {"traits": names, "resource_provider_generation": provider.generation}
        )

    @extend_schema(
        summary="List resource provider traits",
        responses={200: OpenApiResponse(response=schemas.TRAITS_RESPONSE, description="Traits"),
                   403: _ERRORS[403], 404: _ERRORS[404]},
    )
    @versioned("1.6")
    def get(self, request, uuid):
        authorize(request, "placement:resource_providers:traits:list")
        provider = selectors.provider_get(uuid=uuid)
        return self._render(provider, selectors.provider_trait_names(provider.pk))

    @extend_schema(
        summary="Update resource provider traits",
        request={"application/json": schemas.TRAITS_PUT},
        responses={200: OpenApiResponse(response=schemas.TRAITS_RESPONSE, description="Traits"),
                   400: _ERRORS[400], 403: _ERRORS[403], 404: _ERRORS[404], 409: _ERRORS[409]},
    )
    @versioned("1.6")
    @unvaried_404
    def put(self, request, uuid):
        authorize(request, "placement:resource_providers:traits:update")
        data = json_body(request, schemas.TRAITS_PUT)
        provider = services.provider_traits_set(
            uuid=uuid,
            trait_names=data["traits"],
            generation=data["resource_provider_generation"],
        )
        return self._render(provider, sorted(set(data["traits"])))

    @extend_schema(
        summary="Delete resource provider traits",
        responses={204: OpenApiResponse(description="Traits removed"), 403: _ERRORS[403],
                   404: _ERRORS[404], 409: _ERRORS[409]},
    )
    @versioned("1.6")
    @unvaried_404
    def delete(self, request, uuid):
        authorize(request, "placement:resource_providers:traits:delete")
        services.provider_traits_delete(uuid=uuid)
        return empty_response(204)
