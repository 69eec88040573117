"""The shape of ``GET /allocation_candidates``' answer, for the OpenAPI document."""

_RESOURCES = {"type": "object", "additionalProperties": {"type": "integer"}}

RESPONSE = {
    "type": "object",
    "properties": {
        "allocation_requests": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "allocations": {
                        "description": "A dict keyed by provider uuid (1.12+); a list of "
                        "{resource_provider: {uuid}, resources} before 1.12.",
                        "type": ["object", "array"],
                        "additionalProperties": {
                            "type": "object",
                            "properties": {"resources": _RESOURCES},
                        },
                    },
                    "mappings": {
                        "description": "Request group suffix to provider uuids (1.34+).",
                        "type": "object",
                        "additionalProperties": {"type": "array", "items": {"type": "string"}},
                    },
                },
            },
        },
        "provider_summaries": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "resources": {
                        "type": "object",
                        "additionalProperties": {
                            "type": "object",
                            "properties": {
                                "capacity": {"type": "integer"},
                                "used": {"type": "integer"},
                            },
                        },
                    },
                    "traits": {"type": "array", "items": {"type": "string"}},
                    "parent_provider_uuid": {"type": ["string", "null"]},
                    "root_provider_uuid": {"type": "string"},
                },
            },
        },
    },
    "required": ["allocation_requests", "provider_summaries"],
}
