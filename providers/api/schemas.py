"""JSON Schemas for resource providers, their aggregates and their traits.

Bodies are validated with ``placement_core.api.validate``/``json_body``;
query strings of ``GET /resource_providers`` are validated as a flat
``{name: value}`` object (the last value of a repeated key) with
``query_schema_for``.  Each schema is picked by the request's microversion.
"""
import copy

UUID = {"type": "string", "format": "uuid"}
# No NUL characters: PostgreSQL text cannot store them.
NAME = {"type": "string", "maxLength": 200, "pattern": "^[^\\x00]*$"}

# -- POST /resource_providers ---------------------------------------------

_CREATE_BASE = {
    "type": "object",
    "properties": {
        "name": NAME,
        "uuid": UUID,
    },
    "required": ["name"],
    "additionalProperties": False,
}
CREATE_1_14 = copy.deepcopy(_CREATE_BASE)
CREATE_1_14["properties"]["parent_provider_uuid"] = {"anyOf": [UUID, {"type": "null"}]}


def create_schema(mv):
    return CREATE_1_14 if mv >= (1, 14) else _CREATE_BASE


# -- PUT /resource_providers/{uuid} ----------------------------------------

_UPDATE_BASE = {
    "type": "object",
    "properties": {"name": NAME},
    "required": ["name"],
    "additionalProperties": False,
}
UPDATE_1_14 = copy.deepcopy(_UPDATE_BASE)
UPDATE_1_14["properties"]["parent_provider_uuid"] = {"anyOf": [UUID, {"type": "null"}]}


def update_schema(mv):
    return UPDATE_1_14 if mv >= (1, 14) else _UPDATE_BASE


# -- PUT /resource_providers/{uuid}/aggregates -----------------------------

_AGGREGATE_LIST = {"type": "array", "items": UUID, "uniqueItems": True}
AGGREGATES_PUT_1_1 = _AGGREGATE_LIST
AGGREGATES_PUT_1_19 = {
    "type": "object",
    "properties": {
        "aggregates": _AGGREGATE_LIST,
        "resource_provider_generation": {"type": "integer"},
    },
    "required": ["aggregates", "resource_provider_generation"],
    "additionalProperties": False,
}


def aggregates_put_schema(mv):
    return AGGREGATES_PUT_1_19 if mv >= (1, 19) else AGGREGATES_PUT_1_1


# -- PUT /resource_providers/{uuid}/traits ---------------------------------

TRAITS_PUT = {
    "type": "object",
    "properties": {
        "traits": {
            "type": "array",
            "items": {"type": "string", "pattern": "^[A-Z0-9_]+$", "maxLength": 255},
        },
        "resource_provider_generation": {"type": "integer"},
    },
    "required": ["traits", "resource_provider_generation"],
    "additionalProperties": False,
}

# -- GET /resource_providers query string ----------------------------------


def query_schema_for(mv):
    """The flat query-string schema of GET /resource_providers at ``mv``."""
    properties = {"name": {"type": "string"}, "uuid": UUID}
    if mv >= (1, 3):
        properties["member_of"] = {"type": "string"}
    if mv >= (1, 4):
        properties["resources"] = {"type": "string"}
    if mv >= (1, 14):
        properties["in_tree"] = UUID
    if mv >= (1, 18):
        properties["required"] = {"type": "string"}
    return {"type": "object", "properties": properties, "additionalProperties": False}


# -- Response shapes (for the OpenAPI document) ----------------------------

LINK = {
    "type": "object",
    "properties": {"rel": {"type": "string"}, "href": {"type": "string"}},
}
PROVIDER = {
    "type": "object",
    "properties": {
        "uuid": {"type": "string"},
        "name": {"type": "string"},
        "generation": {"type": "integer"},
        "parent_provider_uuid": {"type": ["string", "null"]},
        "root_provider_uuid": {"type": "string"},
        "links": {"type": "array", "items": LINK},
    },
}
PROVIDER_LIST = {
    "type": "object",
    "properties": {"resource_providers": {"type": "array", "items": PROVIDER}},
}
AGGREGATES_RESPONSE = {
    "type": "object",
    "properties": {
        "aggregates": {"type": "array", "items": {"type": "string"}},
        "resource_provider_generation": {"type": "integer"},
    },
}
TRAITS_RESPONSE = {
    "type": "object",
    "properties": {
        "traits": {"type": "array", "items": {"type": "string"}},
        "resource_provider_generation": {"type": "integer"},
    },
}
