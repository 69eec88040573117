"""The body of GET /allocation_candidates, shaped by microversion.

The engine (``allocations.engine``) answers in typed objects; this turns
them into the wire format of the request's microversion:

- allocation requests: a list of ``{"resource_provider": {"uuid"}, "resources"}``
  before 1.12, a dict keyed by provider uuid from it, with ``mappings`` from 1.34;
- provider summaries: ``traits`` from 1.17, ``parent_provider_uuid`` and
  ``root_provider_uuid`` from 1.29 (which classes and providers they cover
  the engine decides, from the request's version).
"""
from allocations.engine import AllocationRequest, CandidateResult, ProviderSummary


def _allocation_request(request: AllocationRequest, version) -> dict:
    if version < (1, 12):
        return {
            "allocations": [
                {"resource_provider": {"uuid": uuid}, "resources": resources}
                for uuid, resources in request.allocations.items()
            ]
        }
    body = {
        "allocations": {
            uuid: {"resources": resources} for uuid, resources in request.allocations.items()
        }
    }
    if version >= (1, 34):
        body["mappings"] = request.mappings
    return body


def _summary(summary: ProviderSummary, version) -> dict:
    entry = {"resources": summary.resources}
    if version >= (1, 17):
        entry["traits"] = summary.traits
    if version >= (1, 29):
        entry["parent_provider_uuid"] = summary.parent_uuid
        entry["root_provider_uuid"] = summary.root_uuid
    return entry


def render(result: CandidateResult, version) -> dict:
    return {
        "allocation_requests": [
            _allocation_request(r, version) for r in result.allocation_requests
        ],
        "provider_summaries": {
            s.uuid: _summary(s, version) for s in result.provider_summaries
        },
    }
