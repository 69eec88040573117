"""JSON Schemas of GET /allocation_candidates: the query string per microversion.

The query string is validated as a flat object (each key mapped to its last
value) before the request groups are parsed; a failure is a 400 reading
``Invalid query string parameters: <validator message>``.  Also the
response shape, for the OpenAPI document.
"""
import copy

_STRING = {"type": "string"}
_SUFFIX_NUMBER = "[1-9][0-9]*"
_SUFFIX_STRING = "([a-zA-Z0-9_-]{1,64})?"

QUERY_1_10 = {
    "type": "object",
    "properties": {"resources": _STRING},
    "required": ["resources"],
    "additionalProperties": False,
}

QUERY_1_16 = copy.deepcopy(QUERY_1_10)
QUERY_1_16["properties"]["limit"] = {"type": "string", "pattern": r"^[1-9][0-9]*$"}

QUERY_1_17 = copy.deepcopy(QUERY_1_16)
QUERY_1_17["properties"]["required"] = _STRING

QUERY_1_21 = copy.deepcopy(QUERY_1_17)
QUERY_1_21["properties"]["member_of"] = _STRING

# 1.25: numbered request groups and group_policy; `resources` is optional.
QUERY_1_25 = copy.deepcopy(QUERY_1_21)
del QUERY_1_25["required"]
QUERY_1_25["properties"]["group_policy"] = {"type": "string", "enum": ["none", "isolate"]}
QUERY_1_25["patternProperties"] = {
    f"^resources{_SUFFIX_NUMBER}$": _STRING,
    f"^required{_SUFFIX_NUMBER}$": _STRING,
    f"^member_of{_SUFFIX_NUMBER}$": _STRING,
}

QUERY_1_31 = copy.deepcopy(QUERY_1_25)
QUERY_1_31["properties"]["in_tree"] = _STRING
QUERY_1_31["patternProperties"][f"^in_tree{_SUFFIX_NUMBER}$"] = _STRING

# 1.33: suffixes are strings; the unsuffixed keys fold into the patterns.
QUERY_1_33 = {
    "type": "object",
    "properties": {
        "limit": QUERY_1_16["properties"]["limit"],
        "group_policy": QUERY_1_25["properties"]["group_policy"],
    },
    "patternProperties": {
        f"^{prefix}{_SUFFIX_STRING}$": _STRING
        for prefix in ("resources", "required", "member_of", "in_tree")
    },
    "additionalProperties": False,
}

QUERY_1_35 = copy.deepcopy(QUERY_1_33)
QUERY_1_35["properties"]["root_required"] = _STRING

QUERY_1_36 = copy.deepcopy(QUERY_1_35)
QUERY_1_36["properties"]["same_subtree"] = _STRING


def query_schema(version):
    """The query-string schema in force at ``version``."""
    for minimum, schema in (
        ((1, 36), QUERY_1_36),
        ((1, 35), QUERY_1_35),
        ((1, 33), QUERY_1_33),
        ((1, 31), QUERY_1_31),
        ((1, 25), QUERY_1_25),
        ((1, 21), QUERY_1_21),
        ((1, 17), QUERY_1_17),
        ((1, 16), QUERY_1_16),
    ):
        if version >= minimum:
            return schema
    return QUERY_1_10


# --- response (documentation only) ---------------------------------------

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
