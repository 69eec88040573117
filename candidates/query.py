"""An allocation-candidates query: its JSON Schema per microversion, and
reading it, strictly for ``GET /allocation_candidates`` and leniently for
the explainer (``GET /explain``, the console, ``explain_candidates``).

The query string is validated as a flat object (each key mapped to its last
value) before the request groups are parsed by the grammar
(``placement_core.querystring``); a failure is a 400 reading
``Invalid query string parameters: <validator message>``.
"""
from __future__ import annotations

import copy

from django.http import QueryDict

from placement_core import errors
from placement_core.microversion import MAX_VERSION
from placement_core.querystring import (
    CandidateRequest,
    last_values,
    parse_candidate_request,
    reject_nul,
    validate_query,
)

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


def parse_strict(query, version) -> CandidateRequest:
    """``GET /allocation_candidates``' query (a QueryDict) at ``version``:
    400 with upstream's words for anything it would refuse."""
    reject_nul(query)
    validate_query(last_values(query), query_schema(version))
    return parse_candidate_request(query, version)


def parse_query(text: str) -> CandidateRequest:
    """An allocation-candidates query string (leading ``?`` optional) read as
    the API reads it at the newest microversion, except that a missing
    ``group_policy`` means ``none`` so a query can be explored before it is
    complete.  Raises ``errors.BadRequest`` with the API's words."""
    query = QueryDict(text.strip().lstrip("?"))
    if not query:
        raise errors.BadRequest("The query is empty; give e.g. resources=VCPU:1.")
    reject_nul(query)
    validate_query(last_values(query), query_schema(MAX_VERSION))
    return parse_candidate_request(query, strict=False)


def request_text(request: CandidateRequest) -> str:
    parts = [group_text(g) for g in request.groups]
    if request.group_policy:
        parts.append(f"group_policy={request.group_policy}")
    rr = sorted(request.root_required) + [f"!{t}" for t in sorted(request.root_forbidden)]
    if rr:
        parts.append("root_required=" + ",".join(rr))
    for suffixes in request.same_subtree:
        parts.append("same_subtree=" + ",".join(suffixes))
    if request.limit is not None:
        parts.append(f"limit={request.limit}")
    return "&".join(p for p in parts if p)


def group_text(g) -> str:
    s = g.suffix
    parts = []
    if g.resources:
        parts.append(f"resources{s}=" + ",".join(f"{rc}:{n}" for rc, n in g.resources.items()))
    for any_of in g.required.any_of:
        names = sorted(any_of)
        parts.append(f"required{s}=" + (f"in:{','.join(names)}" if len(names) > 1 else names[0]))
    if g.required.forbidden:
        parts.append(f"required{s}=" + ",".join(f"!{t}" for t in sorted(g.required.forbidden)))
    for any_of in g.member_of.any_of:
        uuids = sorted(any_of)
        parts.append(f"member_of{s}=" + (f"in:{','.join(uuids)}" if len(uuids) > 1 else uuids[0]))
    if g.member_of.forbidden:
        parts.append(f"member_of{s}=!" + ",".join(sorted(g.member_of.forbidden)))
    if g.in_tree:
        parts.append(f"in_tree{s}={g.in_tree}")
    return "&".join(parts)
