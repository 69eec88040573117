"""Request JSON Schemas (by microversion) and response shapes of the allocations app.

Request bodies:
- ``PUT /allocations/{consumer_uuid}``: a list of ``{resource_provider, resources}``
  up to 1.11 (``project_id``/``user_id`` required from 1.8), then an object
  keyed by provider uuid (1.12), ``consumer_generation`` (1.28, required,
  allocations may be ``{}``), ``mappings`` (1.34, accepted and ignored),
  ``consumer_type`` (1.38, required).
- ``POST /allocations`` (1.13+): an object keyed by consumer uuid, each value
  shaped like the 1.12+ PUT body.

Query strings: ``GET /usages`` (1.9+, ``consumer_type`` from 1.38).
"""
import copy

UUID_KEY = "^[0-9a-fA-F-]{36}$"
# Largest value the database columns hold.
MAX_INT = 2147483647

# No NUL characters: PostgreSQL text cannot hold them.
EXTERNAL_ID = {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[^\\x00]*$"}
CONSUMER_TYPE = {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[A-Z0-9_]+$"}
_CONSUMER_GENERATION = {"type": ["integer", "null"], "minimum": 0, "maximum": MAX_INT}

# No upper bound on an amount: one beyond any inventory's max_unit (at
# most MAX_INT) is refused by the capacity check with a 409, as upstream.
RESOURCES = {
    "type": "object",
    "minProperties": 1,
    "patternProperties": {
        "^[0-9A-Z_]+$": {"type": "integer", "minimum": 1},
    },
    "additionalProperties": False,
}

# Accepted and ignored, with upstream's leniency: the suffix pattern is
# unanchored (a key with any suffix character in it has its value checked,
# other keys are not) and provider uuids may repeat.
_MAPPINGS = {
    "type": "object",
    "minProperties": 1,
    "patternProperties": {
        "[a-zA-Z0-9_-]{1,64}": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "format": "uuid"},
        }
    },
}

# --- PUT /allocations/{consumer_uuid}, 1.0 - 1.11 (list body) ------------

PUT_ALLOCATIONS_1_0 = {
    "type": "object",
    "properties": {
        "allocations": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "resource_provider": {
                        "type": "object",
                        "properties": {"uuid": {"type": "string", "format": "uuid"}},
                        "required": ["uuid"],
                        "additionalProperties": False,
                    },
                    "resources": RESOURCES,
                },
                "required": ["resource_provider", "resources"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["allocations"],
    "additionalProperties": False,
}

PUT_ALLOCATIONS_1_8 = copy.deepcopy(PUT_ALLOCATIONS_1_0)
PUT_ALLOCATIONS_1_8["properties"]["project_id"] = EXTERNAL_ID
PUT_ALLOCATIONS_1_8["properties"]["user_id"] = EXTERNAL_ID
PUT_ALLOCATIONS_1_8["required"] = ["allocations", "project_id", "user_id"]

# --- PUT /allocations/{consumer_uuid}, 1.12+ (dict body) -----------------

_ALLOCATIONS_BY_PROVIDER = {
    "type": "object",
    "minProperties": 1,
    "patternProperties": {
        UUID_KEY: {
            "type": "object",
            "properties": {
                # A provider generation may be sent back from a GET; ignored.
                "generation": {"type": "integer"},
                "resources": RESOURCES,
            },
            "required": ["resources"],
            "additionalProperties": False,
        }
    },
    "additionalProperties": False,
}

PUT_ALLOCATIONS_1_12 = {
    "type": "object",
    "properties": {
        "allocations": _ALLOCATIONS_BY_PROVIDER,
        "project_id": EXTERNAL_ID,
        "user_id": EXTERNAL_ID,
    },
    "required": ["allocations", "project_id", "user_id"],
    "additionalProperties": False,
}

PUT_ALLOCATIONS_1_28 = copy.deepcopy(PUT_ALLOCATIONS_1_12)
PUT_ALLOCATIONS_1_28["properties"]["allocations"]["minProperties"] = 0
PUT_ALLOCATIONS_1_28["properties"]["consumer_generation"] = _CONSUMER_GENERATION
PUT_ALLOCATIONS_1_28["required"].append("consumer_generation")

PUT_ALLOCATIONS_1_34 = copy.deepcopy(PUT_ALLOCATIONS_1_28)
PUT_ALLOCATIONS_1_34["properties"]["mappings"] = _MAPPINGS

PUT_ALLOCATIONS_1_38 = copy.deepcopy(PUT_ALLOCATIONS_1_34)
PUT_ALLOCATIONS_1_38["properties"]["consumer_type"] = CONSUMER_TYPE
PUT_ALLOCATIONS_1_38["required"].append("consumer_type")


def put_allocations_schema(mv):
    if mv >= (1, 38):
        return PUT_ALLOCATIONS_1_38
    if mv >= (1, 34):
        return PUT_ALLOCATIONS_1_34
    if mv >= (1, 28):
        return PUT_ALLOCATIONS_1_28
    if mv >= (1, 12):
        return PUT_ALLOCATIONS_1_12
    if mv >= (1, 8):
        return PUT_ALLOCATIONS_1_8
    return PUT_ALLOCATIONS_1_0


# --- POST /allocations, 1.13+ --------------------------------------------


def _post_schema(consumer_schema):
    consumer = copy.deepcopy(consumer_schema)
    # Empty allocations clear a consumer in every POST version.
    consumer["properties"]["allocations"]["minProperties"] = 0
    return {
        "type": "object",
        "minProperties": 1,
        "patternProperties": {UUID_KEY: consumer},
        "additionalProperties": False,
    }


POST_ALLOCATIONS_1_13 = _post_schema(PUT_ALLOCATIONS_1_12)
POST_ALLOCATIONS_1_28 = _post_schema(PUT_ALLOCATIONS_1_28)
POST_ALLOCATIONS_1_34 = _post_schema(PUT_ALLOCATIONS_1_34)
POST_ALLOCATIONS_1_38 = _post_schema(PUT_ALLOCATIONS_1_38)


def post_allocations_schema(mv):
    if mv >= (1, 38):
        return POST_ALLOCATIONS_1_38
    if mv >= (1, 34):
        return POST_ALLOCATIONS_1_34
    if mv >= (1, 28):
        return POST_ALLOCATIONS_1_28
    return POST_ALLOCATIONS_1_13


# --- GET /usages query string --------------------------------------------

USAGES_QUERY_1_9 = {
    "type": "object",
    "properties": {"project_id": EXTERNAL_ID, "user_id": EXTERNAL_ID},
    "required": ["project_id"],
    "additionalProperties": False,
}

USAGES_QUERY_1_38 = copy.deepcopy(USAGES_QUERY_1_9)
# A consumer type name, or ``all`` / ``unknown`` (the pattern as upstream
# writes it: ``^all`` is not anchored at the end), and no NUL character,
# which PostgreSQL text cannot hold.
USAGES_QUERY_1_38["properties"]["consumer_type"] = {
    "type": "string", "minLength": 1, "maxLength": 255,
    "allOf": [{"pattern": "^[A-Z0-9_]+$|^all|^unknown$"}, {"pattern": "^[^\\x00]*$"}]}


def usages_query_schema(mv):
    return USAGES_QUERY_1_38 if mv >= (1, 38) else USAGES_QUERY_1_9


# --- Response shapes (for the OpenAPI document) ---------------------------


_RESOURCE_AMOUNTS = {"type": "object", "additionalProperties": {"type": "integer"}}

CONSUMER_ALLOCATIONS = {
    "type": "object",
    "properties": {
        "allocations": {
            "type": "object",
            "description": "Keyed by resource provider uuid.",
            "additionalProperties": {
                "type": "object",
                "properties": {"generation": {"type": "integer"}, "resources": _RESOURCE_AMOUNTS},
            },
        },
        "project_id": {"type": "string", "description": "From 1.12."},
        "user_id": {"type": "string", "description": "From 1.12."},
        "consumer_generation": {"type": "integer", "description": "From 1.28."},
        "consumer_type": {"type": "string", "description": "From 1.38."},
    },
    "required": ["allocations"],
}

PROVIDER_ALLOCATIONS = {
    "type": "object",
    "properties": {
        "allocations": {
            "type": "object",
            "description": "Keyed by consumer uuid.",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "resources": _RESOURCE_AMOUNTS,
                    "consumer_generation": {"type": "integer", "description": "From 1.28."},
                },
            },
        },
        "resource_provider_generation": {"type": "integer"},
    },
    "required": ["allocations", "resource_provider_generation"],
}

PROVIDER_USAGES = {
    "type": "object",
    "properties": {
        "usages": _RESOURCE_AMOUNTS,
        "resource_provider_generation": {"type": "integer"},
    },
    "required": ["usages", "resource_provider_generation"],
}

USAGES = {
    "type": "object",
    "properties": {
        "usages": {
            "type": "object",
            "description": "Up to 1.37: resource class -> amount. From 1.38: consumer type -> "
            "{consumer_count, resource class -> amount}.",
            "additionalProperties": True,
        }
    },
    "required": ["usages"],
}
