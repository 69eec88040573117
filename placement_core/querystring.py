"""The request-group grammar: one parser for every query that names resources.

``GET /resource_providers`` (its ``resources``, ``required`` and
``member_of`` filters), ``GET /allocation_candidates`` (the whole grammar)
and the console's forms all read their queries here, so a query means the
same thing, and is refused with the same words, wherever it is written:

    resources[S]=CLASS:N,...        amounts (N >= 1, each class once)
    required[S]=T,!F | in:A,B       traits: all of, none of (1.22+), any of (1.39+)
    member_of[S]=U | in:U,V | !...  aggregates: any of (1.24+ repeats AND), none of (1.32+)
    in_tree[S]=U                    only the tree of provider U (1.31+)
    group_policy=none|isolate       (1.25+) needed with two or more suffixed groups
    same_subtree=S1,S2              (1.36+) the groups' providers share a subtree
    root_required=T,!F              (1.35+) traits of the tree's root
    limit=N                         (1.16+) at most N allocation requests

Suffixes are digits before 1.33 and up to 64 of ``[a-zA-Z0-9_-]`` from it.

``strict`` (the API) judges a query at the request's microversion with
Placement's exact error texts and codes. The console's forms parse
leniently: at the newest microversion, and a missing ``group_policy`` means
``none`` instead of an error, so that an operator can explore a query
before it is one the API would take. Both raise ``errors.BadRequest``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from placement_core import errors
from placement_core.microversion import MAX_VERSION
from placement_core.uuids import UUID_SPELLING, normalize_uuid

_KEY_NUMBERED = re.compile(r"^(resources|required|member_of|in_tree)([1-9][0-9]*)?$")
_KEY_STRING = re.compile(r"^(resources|required|member_of|in_tree)([a-zA-Z0-9_-]{1,64})?$")


def last_values(query) -> dict:
    """A QueryDict as {key: its last value} (a repeated key keeps the last one)."""
    return {key: query.getlist(key)[-1] for key in query.keys()}


def validate_query(values: dict, schema: dict) -> dict:
    """400 "Invalid query string parameters: ..." unless ``values`` fit ``schema``."""
    # Imported here: the settings reader imports this module (PLACEMENT_FLAVORS),
    # and placement_core.api pulls in DRF, whose settings must not be read then.
    from placement_core.api import validate

    return validate(values, schema, problem="Invalid query string parameters")


# -- The values' forms as patterns (the OpenAPI document) ---------------------
#
# What a value must look like for the grammar above to take it at the newest
# microversion, in Python ``re`` syntax as jsonschema and Schemathesis read a
# pattern (``\s`` and ``\d`` are Unicode's, as str.strip() and int() read
# them). A value that does not match is refused whatever the database holds;
# one that matches may still be refused for what no pattern can say: an
# unknown resource class, trait or suffix, an amount of 0, a class named
# twice, a trait both required and forbidden. Every resource class and trait
# is named NAME (the standard ones and CUSTOM_...): another spelling can only
# be an unknown one. tests/openapi/test_query_patterns.py holds the patterns
# to the parsers.

NAME = "[A-Z0-9_]+"
SUFFIX = "[a-zA-Z0-9_-]{1,64}"
_AMOUNT = r"\s*\+?\d+(?:_\d+)*\s*"  # int()'s decimal spelling: signs, spaces, 1_000
_RESOURCE = f"{NAME}:{_AMOUNT}"  # the class is not stripped, the amount is
_TRAIT = rf"\s*!*{NAME}\s*"  # a run of leading '!' forbids the name
_ANY_OF_TRAIT = rf"\s*{NAME}\s*"
_SUFFIX_ITEM = rf"\s*{SUFFIX}\s*"

PATTERNS = {
    "resources": f"^{_RESOURCE}(?:,{_RESOURCE})*$",
    "required": f"^(?:in:{_ANY_OF_TRAIT}(?:,{_ANY_OF_TRAIT})*|{_TRAIT}(?:,{_TRAIT})*)$",
    "root_required": f"^{_TRAIT}(?:,{_TRAIT})*$",
    "member_of": f"^!?(?:in:{UUID_SPELLING}(?:,{UUID_SPELLING})*|{UUID_SPELLING})$",
    "in_tree": rf"^\s*{UUID_SPELLING}\s*$",
    "same_subtree": f"^{_SUFFIX_ITEM}(?:,{_SUFFIX_ITEM})*$",
}

# GET /resource_providers looks a name up only while every filter before it
# still matches some provider: as upstream, an unknown ``in_tree`` provider
# or a trait nobody has answers an empty list before a later name is looked
# up at all. There a name of any spelling can get a 200, so these patterns
# take any name the grammar splits out: the class before ``:``, and any
# comma-separated item with a character other than a space (looser than the
# grammar, which also refuses an empty forbidden name and ``!`` inside ``in:``).
_ANY_CLASS = f"[^,:]*:{_AMOUNT}"
_ANY_ITEM = r"[^,]*[^,\s][^,]*"
PROVIDER_LIST_PATTERNS = {
    "resources": f"^{_ANY_CLASS}(?:,{_ANY_CLASS})*$",
    "required": f"^{_ANY_ITEM}(?:,{_ANY_ITEM})*$",
}


# -- Typed results -------------------------------------------------------------


@dataclass
class MemberOf:
    """Aggregate filters: every set in ``any_of`` must meet, none of ``forbidden``."""

    any_of: list = field(default_factory=list)  # of sets of canonical uuids
    forbidden: set = field(default_factory=set)


@dataclass
class RequiredTraits:
    """Trait filters: each set in ``any_of`` needs one member; none of ``forbidden``."""

    any_of: list = field(default_factory=list)  # of frozensets of names
    forbidden: set = field(default_factory=set)

    def names(self) -> set:
        found = set(self.forbidden)
        for group in self.any_of:
            found |= group
        return found


@dataclass
class RequestGroup:
    """One request group: ``suffix`` "" is the unsuffixed group."""

    suffix: str
    resources: dict = field(default_factory=dict)  # class name -> amount
    required: RequiredTraits = field(default_factory=RequiredTraits)
    member_of: MemberOf = field(default_factory=MemberOf)
    in_tree: str | None = None  # canonical provider uuid

    @property
    def use_same_provider(self) -> bool:
        """A suffixed group is met by one provider alone."""
        return bool(self.suffix)


@dataclass
class CandidateRequest:
    """A whole allocation-candidates query, groups in order (unsuffixed first)."""

    groups: list
    group_policy: str | None = None
    limit: int | None = None
    root_required: set = field(default_factory=set)
    root_forbidden: set = field(default_factory=set)
    same_subtree: list = field(default_factory=list)  # lists of suffixes
    version: tuple = MAX_VERSION  # what the answer is shaped for


# -- One parameter at a time ---------------------------------------------------

_RESOURCES_FORM = (
    "Badly formed resources parameter. Expected resources query string parameter "
    "in form: ?resources=VCPU:2,MEMORY_MB:1024. Got: {got}."
)


_NEVER_MET = 2**31


def parse_resources(text: str) -> dict:
    """``VCPU:2,DISK_GB:10`` -> {"VCPU": 2, "DISK_GB": 10} (``VCPU:1,VCPU:2`` -> {"VCPU": 2})."""
    if text.strip() == "":
        raise errors.BadRequest(_RESOURCES_FORM.format(got="empty string"))
    amounts = {}
    for item in text.split(","):
        try:
            name, raw_amount = item.split(":")
        except ValueError:
            raise errors.BadRequest(_RESOURCES_FORM.format(got=item))
        try:
            amount = int(raw_amount)
        except ValueError:
            raise errors.BadRequest(
                f"Requested resource {name} expected positive integer amount. "
                f"Got: {raw_amount}."
            )
        if amount < 1:
            raise errors.BadRequest(
                f"Requested resource {name} requires amount >= 1. Got: {amount}."
            )
        # No provider gives more than its max_unit (at most a 32-bit integer)
        # at once, so a larger amount matches nothing whatever it is; kept
        # within what every database can bind.
        amount = min(amount, _NEVER_MET)
        # A class named twice: the last amount counts, as upstream.
        amounts[name] = amount
    return amounts


_ANY_OF_FORM = "'in:HW_CPU_X86_VMX,CUSTOM_MAGIC'"


def _parse_any_of(value: str) -> frozenset:
    names = {name.strip() for name in value[3:].split(",")}
    if not all(names):
        raise errors.BadRequest(
            "Invalid query string parameters: Expected 'required' parameter value of the "
            f"form: in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: {value}"
        )
    if any(name.startswith("!") for name in names):
        raise errors.BadRequest(
            f"Invalid query string parameters: The format {_ANY_OF_FORM} does not support "
            f"forbidden traits. Got: {value}"
        )
    return frozenset(names)


def parse_required(values: list, mv, *, param: str = "required") -> RequiredTraits:
    """``required`` values (repeated keys ANDed from 1.39, else the last one wins).

    ``root_required`` shares the form (forbidden traits always allowed, no
    ``in:``). The error texts are upstream's, which name ``required`` for
    both; a run of leading ``!`` forbids the name after it, as upstream reads it.
    """
    result = RequiredTraits()
    if not values:
        return result
    is_root = param == "root_required"
    if mv < (1, 39) and not is_root:
        values = values[-1:]
    allow_forbidden = is_root or mv >= (1, 22)
    form = "HW_CPU_X86_VMX,!CUSTOM_MAGIC" if allow_forbidden else "HW_CPU_X86_VMX,CUSTOM_MAGIC"

    for value in values:
        if value.startswith("in:"):
            if mv < (1, 39) or is_root:
                raise errors.BadRequest(
                    f"Invalid query string parameters: The format {_ANY_OF_FORM} only "
                    f"supported since microversion 1.39. Got: {value}"
                )
            result.any_of.append(_parse_any_of(value))
            continue
        names = [name.strip() for name in value.split(",")]
        forbidden = {name.lstrip("!") for name in names if name.startswith("!")}
        if not all(names) or not all(forbidden):
            raise errors.BadRequest(
                "Invalid query string parameters: Expected 'required' parameter value of "
                f"the form: {form}. Got an empty trait in: {value}"
            )
        if forbidden and not allow_forbidden:
            raise errors.BadRequest(
                "Invalid query string parameters: Expected 'required' parameter value of "
                f"the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: {value}"
            )
        result.forbidden |= forbidden
        result.any_of.extend(frozenset([name]) for name in names if not name.startswith("!"))
    return result


def parse_member_of(values: list, mv, *, suffix: str = "") -> MemberOf:
    """All values of one ``member_of<S>`` key (repeated keys kept)."""
    result = MemberOf()
    if not values:
        return result
    if mv < (1, 24) and len(values) > 1:
        raise errors.BadRequest(f"Multiple member_of{suffix} parameters are not supported")
    for value in values:
        text, forbidden = value, False
        if text.startswith("!"):
            forbidden, text = True, text[1:]
        if text.startswith("in:"):
            parts = text[3:].split(",")
        elif "," in text:
            raise errors.BadRequest(
                "Multiple values for 'member_of' must be prefixed with the 'in:' or "
                f"'!in:' keyword using the valid microversion. Got: {value}"
            )
        else:
            parts = [text]
        uuids = set()
        for part in parts:
            canonical = normalize_uuid(part)
            if canonical is None:
                raise errors.BadRequest(
                    "Invalid query string parameters: Expected 'member_of' parameter to "
                    f"contain valid UUID(s). Got: {part}"
                )
            uuids.add(canonical)
        if forbidden and mv < (1, 32):
            raise errors.BadRequest(
                f"Forbidden member_of{suffix} parameters are not supported in the specified "
                "microversion"
            )
        if forbidden:
            result.forbidden |= uuids
        else:
            result.any_of.append(uuids)
    return result


def parse_in_tree(value: str) -> str:
    canonical = normalize_uuid(value.strip())
    if canonical is None:
        raise errors.BadRequest(
            "Invalid query string parameters: Expected 'in_tree' parameter to be a "
            f"format of uuid. Got: {value}"
        )
    return canonical


# -- A whole allocation-candidates query ----------------------------------------


# The largest ``limit`` taken: a machine integer on every platform, far
# above any real answer.
MAX_LIMIT = 2**31 - 1


def reject_nul(query) -> None:
    """400 when a query key or value holds a NUL character, which no name,
    uuid or number can contain and no database text column can store."""
    for key, values in _lists(query).items():
        if "\x00" in key or any("\x00" in value for value in values):
            raise errors.BadRequest(
                f"Invalid query string parameters: {key!r} contains a NUL character"
            )


def nul_problem(request, kwargs) -> str | None:
    """What a staff page (console, admin) refuses before it reads anything:
    a NUL character in its path (``kwargs``) or in a query or form value
    (no name, uuid, trait or class holds one, and PostgreSQL cannot even be
    asked about it)."""
    for name, value in kwargs.items():
        if "\x00" in str(value):
            return f"The {name} in the address holds a NUL character, which nothing can be named."
    for source in (request.GET, request.POST):
        for key, values in source.lists():
            if "\x00" in key or any("\x00" in value for value in values):
                shown = key.replace("\x00", "\\x00")
                return f"The field {shown!r} holds a NUL character, which nothing can be named."
    return None


def _lists(query) -> dict:
    """A QueryDict or {key: [values]} as {key: [values]}, keys in query order."""
    if hasattr(query, "getlist"):
        return {key: query.getlist(key) for key in query.keys()}
    return {key: list(values) for key, values in query.items()}


def _parse_groups(query: dict, mv) -> dict:
    key_pattern = _KEY_STRING if mv >= (1, 33) else _KEY_NUMBERED
    groups = {}
    for key, values in query.items():
        match = key_pattern.match(key)
        if not match:
            continue
        prefix, suffix = match.group(1), match.group(2) or ""
        group = groups.setdefault(suffix, RequestGroup(suffix=suffix))
        if prefix == "resources":
            group.resources = parse_resources(values[-1])
        elif prefix == "required":
            group.required = parse_required(values, mv)
        elif prefix == "member_of":
            group.member_of = parse_member_of(values, mv, suffix=suffix)
        else:
            group.in_tree = parse_in_tree(values[-1])
    return groups


def _parse_same_subtree(values: list) -> list:
    """The suffix lists of ``same_subtree``, read (like upstream) before the groups."""
    result = []
    for value in values:
        suffixes = [s.strip() for s in value.split(",")]
        if any(s == "" for s in suffixes):
            raise errors.BadRequest(
                "Empty string (unsuffixed group) can not be specified in `same_subtree` ",
                code=errors.QUERY_BAD_VALUE,
            )
        result.append(list(dict.fromkeys(suffixes)))
    return result


def _check_groups_1_36(groups: dict, same_subtree: list) -> None:
    """From 1.36 a group may come without resources (only trait, aggregate or
    tree filters) when ``same_subtree`` names it; checked in upstream's
    order, the unsuffixed group counted like any other."""
    if not any(g.resources for g in groups.values()):
        raise errors.BadRequest(
            "There must be at least one resources or resources[$S] parameter.",
            code=errors.QUERY_MISSING_VALUE,
        )
    in_subtree = {s for suffixes in same_subtree for s in suffixes}
    bad = [s for s, g in groups.items() if not g.resources and s not in in_subtree]
    if bad:
        raise errors.BadRequest(
            "Resourceless suffixed group request should be specified in `same_subtree` "
            f"query param: bad group(s) - {bad}.",
            code=errors.QUERY_BAD_VALUE,
        )
    unknown = [s for s in dict.fromkeys(s for ss in same_subtree for s in ss) if s not in groups]
    if unknown:
        raise errors.BadRequest(
            "Real suffixes should be specified in `same_subtree`: "
            f"{unknown} not found in {list(groups)}.",
            code=errors.QUERY_BAD_VALUE,
        )


def _check_orphans(groups: dict) -> None:
    # Named in query order, as upstream does.
    orphans = [
        f"required{s}" for s, g in groups.items()
        if (g.required.any_of or g.required.forbidden) and not g.resources
    ]
    if orphans:
        raise errors.BadRequest(
            "All traits parameters must be associated with resources.  Found the "
            f"following orphaned traits keys: {', '.join(orphans)}"
        )
    orphans = [
        f"member_of{s}" for s, g in groups.items()
        if (g.member_of.any_of or g.member_of.forbidden) and not g.resources
    ]
    if orphans:
        raise errors.BadRequest(
            "All member_of parameters must be associated with resources. Found the "
            f"following orphaned member_of keys: {', '.join(orphans)}"
        )
    if not all(g.resources for g in groups.values()):
        raise errors.BadRequest("All request groups must specify resources.")
    if not groups:
        raise errors.BadRequest(
            "At least one request group (`resources` or `resources{$S}`) is required."
        )


def _check_conflicts(groups: dict) -> None:
    """An any-of set whose every member is also forbidden can never be met."""
    conflicts = sorted(
        f"required{suffix}: ({', '.join(sorted(any_of))})"
        for suffix, group in groups.items()
        for any_of in group.required.any_of
        if any_of and any_of <= group.required.forbidden
    )
    if conflicts:
        raise errors.BadRequest(
            "Conflicting required and forbidden traits found in the following traits "
            f"keys: {', '.join(conflicts)}"
        )


def _parse_root_required(values: list, mv) -> tuple[set, set]:
    if len(values) > 1:
        raise errors.BadRequest(
            "Query parameter 'root_required' may be specified only once.",
            code=errors.QUERY_DUPLICATE_KEY,
        )
    traits = parse_required(values, mv, param="root_required")
    required = {name for s in traits.any_of for name in s}
    conflict = required & traits.forbidden
    if conflict:
        raise errors.BadRequest(
            "Conflicting required and forbidden traits found in root_required: "
            + ", ".join(sorted(conflict)),
            code=errors.QUERY_BAD_VALUE,
        )
    return required, traits.forbidden


def parse_candidate_request(query, mv=MAX_VERSION, *, strict: bool = True) -> CandidateRequest:
    """A query (QueryDict or {key: [values]}) -> :class:`CandidateRequest`.

    The API validates the query's keys and value shapes against its JSON
    Schema first (candidates.query); this judges what the
    values mean.
    """
    if not strict:
        mv = MAX_VERSION
    query = _lists(query)
    # Request-wide parameters first, then the groups: upstream's order, so
    # the same bad query gets the same first error.
    root_required, root_forbidden = set(), set()
    if mv >= (1, 35) and "root_required" in query:
        root_required, root_forbidden = _parse_root_required(query["root_required"], mv)
    same_subtree = []
    if mv >= (1, 36) and "same_subtree" in query:
        same_subtree = _parse_same_subtree(query["same_subtree"])
    groups = _parse_groups(query, mv)
    if mv >= (1, 36):
        _check_groups_1_36(groups, same_subtree)
    else:
        _check_orphans(groups)
    _check_conflicts(groups)
    request = CandidateRequest(
        groups=[groups[s] for s in sorted(groups, key=lambda s: (s != "", s))],
        same_subtree=same_subtree,
        root_required=root_required,
        root_forbidden=root_forbidden,
        version=mv,
    )
    if mv >= (1, 25):
        policies = query.get("group_policy")
        request.group_policy = policies[0] if policies else None
        if sum(1 for s in groups if s) > 1 and not request.group_policy:
            if strict:
                raise errors.BadRequest(
                    'The "group_policy" parameter is required when specifying more than one '
                    '"resources{N}" parameter.'
                )
            request.group_policy = "none"
    if mv >= (1, 16) and "limit" in query:
        raw = query["limit"][0]  # digits, no leading zero (the query schema)
        # Too long is too large, known before int(), which refuses more than
        # 4,300 digits with a ValueError.
        if len(raw) > len(str(MAX_LIMIT)) or int(raw) > MAX_LIMIT:
            raise errors.BadRequest(
                f"Invalid query string parameters: limit must be at most {MAX_LIMIT}",
                code=errors.QUERY_BAD_VALUE,
            )
        request.limit = int(raw)
    return request


# -- Named request shapes (the console's headroom) ------------------------------


@dataclass(frozen=True)
class Flavor:
    """A named unsuffixed request group, e.g. m1.large = VCPU:4,MEMORY_MB:8192."""

    name: str
    resources: dict  # class name -> amount


def parse_flavors(text: str) -> list:
    """``"m1.large=VCPU:4,MEMORY_MB:8192; m1.small=VCPU:1,MEMORY_MB:2048"``
    (each may start ``resources=``) -> [Flavor]; ValueError naming the bad entry."""
    flavors = []
    for entry in (e.strip() for e in (text or "").split(";")):
        if not entry:
            continue
        name, sep, spec = entry.partition("=")
        name, spec = name.strip(), spec.strip().removeprefix("resources=")
        if not sep or not name or not spec:
            raise ValueError(f"flavor {entry!r}: expected NAME=CLASS:AMOUNT,...")
        try:
            resources = parse_resources(spec)
        except errors.BadRequest as exc:
            raise ValueError(f"flavor {name!r}: {exc.detail}") from None
        # The query string lets the last amount of a class win; a flavor
        # naming one twice is a typo worth refusing.
        named = [item.split(":")[0] for item in spec.split(",")]
        if len(named) != len(set(named)):
            twice = next(n for n in named if named.count(n) > 1)
            raise ValueError(f"flavor {name!r}: resource class {twice} is named more than once")
        if any(f.name == name for f in flavors):
            raise ValueError(f"flavor {name!r} is defined twice")
        flavors.append(Flavor(name, resources))
    return flavors
