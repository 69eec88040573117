"""JSON Schemas (draft 4) for POST /reshaper, by microversion.

- 1.30: ``inventories`` (provider uuid -> generation + the complete set of
  inventory records) and ``allocations`` (consumer uuid -> the body of one
  consumer in POST /allocations at 1.28: allocations, project_id, user_id,
  consumer_generation).
- 1.34: each consumer may also carry ``mappings`` (accepted, ignored).
- 1.38: each consumer must carry ``consumer_type``.

A provider's entry is the body of PUT /resource_providers/{uuid}/
inventories uses (``providers.api.inventory_schemas``) and the consumer
schema the one of POST /allocations (``allocations.api.schemas``), so the
endpoints reject the same bodies with the same messages.
"""
import copy

from allocations.api import schemas as alloc_schemas
from providers.api.inventory_schemas import INVENTORIES_REPLACE

UUID_KEY = "^[0-9a-fA-F-]{36}$"

# One provider's entry: the body of PUT /resource_providers/{uuid}/inventories.
_PROVIDER_INVENTORIES = INVENTORIES_REPLACE


def _consumer(post_schema: dict) -> dict:
    """The schema of one consumer's entry in POST /allocations (same microversion)."""
    return copy.deepcopy(post_schema["patternProperties"][alloc_schemas.UUID_KEY])


_CONSUMER_1_30 = _consumer(alloc_schemas.POST_ALLOCATIONS_1_28)
_CONSUMER_1_34 = _consumer(alloc_schemas.POST_ALLOCATIONS_1_34)
_CONSUMER_1_38 = _consumer(alloc_schemas.POST_ALLOCATIONS_1_38)


def _reshape(consumer_schema: dict) -> dict:
    return {
        "type": "object",
        "properties": {
            "inventories": {
                "type": "object",
                "patternProperties": {UUID_KEY: copy.deepcopy(_PROVIDER_INVENTORIES)},
                # A reshape moves inventory: at least one provider's (as upstream).
                "minProperties": 1,
                "additionalProperties": False,
            },
            "allocations": {
                "type": "object",
                "patternProperties": {UUID_KEY: copy.deepcopy(consumer_schema)},
                "additionalProperties": False,
            },
        },
        "required": ["inventories", "allocations"],
        "additionalProperties": False,
    }


RESHAPE_1_30 = _reshape(_CONSUMER_1_30)
RESHAPE_1_34 = _reshape(_CONSUMER_1_34)
RESHAPE_1_38 = _reshape(_CONSUMER_1_38)


def reshape_schema(version) -> dict:
    """The request schema for the request's microversion (1.30 or later)."""
    if version >= (1, 38):
        return RESHAPE_1_38
    if version >= (1, 34):
        return RESHAPE_1_34
    return RESHAPE_1_30

