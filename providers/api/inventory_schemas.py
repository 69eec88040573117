"""JSON Schemas (draft 4) for /resource_providers/{uuid}/inventories*.

Request schemas are checked with ``placement_core.api.validate``; they are
the same at every microversion (the 1.26 change, reserved == total, is a
semantic rule in ``providers.inventory_services``). The response schemas
only feed the OpenAPI document.
"""
import copy

# Bounds of the database columns: a signed 32-bit integer and a
# single-precision float.
MAX_INT = 2147483647
MAX_FLOAT = 3.40282e38

# A resource class name as it may appear in a body or path.
RESOURCE_CLASS_PATTERN = "^[A-Z0-9_]+$"

# The fields of one inventory record, with their bounds.
INVENTORY_FIELDS = {
    "total": {"type": "integer", "minimum": 1, "maximum": MAX_INT},
    "reserved": {"type": "integer", "minimum": 0, "maximum": MAX_INT},
    "min_unit": {"type": "integer", "minimum": 1, "maximum": MAX_INT},
    "max_unit": {"type": "integer", "minimum": 1, "maximum": MAX_INT},
    "step_size": {"type": "integer", "minimum": 1, "maximum": MAX_INT},
    # No lower bound, as upstream: a ratio of 0 or below is judged by the
    # capacity it gives (inventory_services), like total and reserved.
    "allocation_ratio": {"type": "number", "maximum": MAX_FLOAT},
}

GENERATION = {"type": "integer"}

# PUT /resource_providers/{uuid}/inventories/{resource_class}
INVENTORY_UPDATE = {
    "type": "object",
    "properties": {
        "resource_provider_generation": GENERATION,
        **copy.deepcopy(INVENTORY_FIELDS),
    },
    "required": ["total", "resource_provider_generation"],
    "additionalProperties": False,
}

# POST /resource_providers/{uuid}/inventories: the class is in the body;
# the generation may be sent but is not checked, as upstream (the provider row lock
# orders concurrent writers).
INVENTORY_CREATE = {
    "type": "object",
    "properties": {
        "resource_class": {"type": "string", "pattern": RESOURCE_CLASS_PATTERN},
        "resource_provider_generation": GENERATION,
        **copy.deepcopy(INVENTORY_FIELDS),
    },
    "required": ["total", "resource_class"],
    "additionalProperties": False,
}

# One record inside PUT /resource_providers/{uuid}/inventories.
INVENTORY_RECORD = {
    "type": "object",
    "properties": copy.deepcopy(INVENTORY_FIELDS),
    "required": ["total"],
    "additionalProperties": False,
}

# PUT /resource_providers/{uuid}/inventories
INVENTORIES_REPLACE = {
    "type": "object",
    "properties": {
        "resource_provider_generation": GENERATION,
        "inventories": {
            "type": "object",
            "patternProperties": {RESOURCE_CLASS_PATTERN: INVENTORY_RECORD},
            "additionalProperties": False,
        },
    },
    "required": ["resource_provider_generation", "inventories"],
    "additionalProperties": False,
}

# --- response bodies (documentation only) ---------------------------------

_RECORD_OUT = {
    "type": "object",
    "properties": {
        "total": {"type": "integer"},
        "reserved": {"type": "integer"},
        "min_unit": {"type": "integer"},
        "max_unit": {"type": "integer"},
        "step_size": {"type": "integer"},
        "allocation_ratio": {"type": "number"},
    },
    "required": ["total", "reserved", "min_unit", "max_unit", "step_size", "allocation_ratio"],
}

INVENTORY_RESPONSE = {
    "type": "object",
    "properties": {
        "resource_provider_generation": {"type": "integer"},
        **_RECORD_OUT["properties"],
    },
    "required": ["resource_provider_generation", *_RECORD_OUT["required"]],
}

INVENTORIES_RESPONSE = {
    "type": "object",
    "properties": {
        "resource_provider_generation": {"type": "integer"},
        "inventories": {"type": "object", "additionalProperties": _RECORD_OUT},
    },
    "required": ["resource_provider_generation", "inventories"],
}
