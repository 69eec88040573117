"""JSON Schemas for the resource class and trait endpoints.

Request schemas are validated with ``placement_core.api.validate``; the
response schemas only feed the OpenAPI document.
"""

# A custom name: the CUSTOM_ prefix, then upper-case letters, digits, "_".
CUSTOM_NAME_PATTERN = "^CUSTOM_[A-Z0-9_]+$"
NAME_MAX_LENGTH = 255

# POST /resource_classes (1.2+), PUT /resource_classes/{name} (1.2 - 1.6),
# and, applied to ``{"name": <path name>}``, PUT /resource_classes/{name} (1.7+).
RESOURCE_CLASS_NAME = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "pattern": CUSTOM_NAME_PATTERN,
            "maxLength": NAME_MAX_LENGTH,
        },
    },
    "required": ["name"],
    "additionalProperties": False,
}

# The query string of GET /traits (values are the raw strings).
TRAIT_LIST_QUERY = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "associated": {"type": "string"},
    },
    "additionalProperties": False,
}

# --- response bodies (documentation only) ---------------------------------

LINK = {
    "type": "object",
    "properties": {
        "rel": {"type": "string", "example": "self"},
        "href": {"type": "string", "example": "/resource_classes/CUSTOM_FPGA"},
    },
    "required": ["rel", "href"],
}

RESOURCE_CLASS = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "example": "CUSTOM_FPGA"},
        "links": {"type": "array", "items": LINK},
    },
    "required": ["name", "links"],
}

RESOURCE_CLASS_LIST = {
    "type": "object",
    "properties": {"resource_classes": {"type": "array", "items": RESOURCE_CLASS}},
    "required": ["resource_classes"],
}

TRAIT_LIST = {
    "type": "object",
    "properties": {
        "traits": {
            "type": "array",
            "items": {"type": "string", "example": "HW_CPU_X86_AVX2"},
        }
    },
    "required": ["traits"],
}
