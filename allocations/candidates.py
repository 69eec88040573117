"""GET /allocation_candidates: parse the request, find the candidates.

Three stages:

1. :func:`parse_request` turns the query string into request groups (the
   unsuffixed one and ``resources<S>``/``required<S>``/``member_of<S>``/
   ``in_tree<S>`` ones) and request-wide parameters, raising 400s with
   Placement's messages.
2. :func:`find_candidates` loads, in a fixed number of SQL statements
   whatever the number of providers, the inventories that can serve a
   requested amount, the sharing providers and the trees they reach, the
   trees' providers with their traits and aggregates; then builds, per tree
   and per group, the ways the group can be met (:class:`~allocations.combiner.Choice`)
   and lets :mod:`allocations.combiner` pick valid combinations.
3. :func:`render` shapes allocation requests and provider summaries for the
   request's microversion.

Semantics (from the API reference and provider-tree guide):

- the unsuffixed group may spread its classes over providers of one tree
  plus sharing providers (trait ``MISC_SHARES_VIA_AGGREGATE``) that share an
  aggregate with any provider of that tree, one provider per class; its
  required/forbidden traits are judged on the union of the traits of the
  providers it uses; its ``member_of`` counts a root's aggregates for the
  whole tree;
- a suffixed group is met by one provider alone, with the traits and the
  aggregates itself;
- ``in_tree`` keeps a group's providers (sharing ones included) inside the
  tree of the named provider; ``root_required`` judges the anchor tree's
  root.
"""
import random
import re
from dataclasses import dataclass, field

import jsonschema
from django.conf import settings
from django.db import connection

from allocations import combiner
from allocations.api import candidates_schemas
from placement_site import errors
from placement_site.uuids import normalize_uuid

SHARES_TRAIT = "MISC_SHARES_VIA_AGGREGATE"

_KEY_NUMBERED = re.compile(r"^(resources|required|member_of|in_tree)([1-9][0-9]*)?$")
_KEY_STRING = re.compile(r"^(resources|required|member_of|in_tree)([a-zA-Z0-9_-]{1,64})?$")


# --------------------------------------------------------------------------
# 1. parsing
# --------------------------------------------------------------------------


@dataclass
class RequestGroup:
    suffix: str
    resources: dict = field(default_factory=dict)  # class name -> amount
    required: list = field(default_factory=list)  # list of frozensets (any-of)
    forbidden: set = field(default_factory=set)
    member_of: list = field(default_factory=list)  # list of sets of aggregate uuids
    forbidden_aggs: set = field(default_factory=set)
    in_tree: str | None = None

    @property
    def use_same_provider(self):
        return bool(self.suffix)


@dataclass
class CandidateRequest:
    groups: list
    group_policy: str | None = None
    limit: int | None = None
    root_required: set = field(default_factory=set)
    root_forbidden: set = field(default_factory=set)
    same_subtree: list = field(default_factory=list)  # lists of suffixes


def _bad(message, code=None):
    return errors.BadRequest(message, code=code)


def _resources_form_error(got):
    return _bad(
        "Badly formed resources parameter. Expected resources query string parameter "
        f"in form: ?resources=VCPU:2,MEMORY_MB:1024. Got: {got}."
    )


def parse_resources(value):
    """``VCPU:2,MEMORY_MB:1024`` -> {"VCPU": 2, "MEMORY_MB": 1024}."""
    if value.strip() == "":
        raise _resources_form_error("empty string")
    result = {}
    for item in value.split(","):
        try:
            name, amount = item.split(":")
        except ValueError:
            raise _resources_form_error(item)
        try:
            number = int(amount)
        except ValueError:
            raise _bad(
                f"Requested resource {name} expected positive integer amount. Got: {amount}."
            )
        if number < 1:
            raise _bad(f"Requested resource {name} requires amount >= 1. Got: {number}.")
        result[name] = number
    return result


def parse_traits(value, *, allow_forbidden, allow_any, param="required"):
    """One ``required`` value -> (list of any-of frozensets, forbidden set)."""
    form = "HW_CPU_X86_VMX,!CUSTOM_MAGIC" if allow_forbidden else "HW_CPU_X86_VMX,CUSTOM_MAGIC"
    form_error = _bad(
        f"Invalid query string parameters: Expected '{param}' parameter value of the "
        f"form: {form}."
    )
    if value.startswith("in:"):
        if not allow_any:
            raise _bad(
                "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since "
                "microversion 1.39."
            )
        names = value[3:].split(",")
        if not all(names) or any(n.startswith("!") for n in names):
            raise form_error
        return [frozenset(names)], set()
    required, forbidden = [], set()
    for name in value.split(","):
        if not name:
            raise form_error
        if name.startswith("!"):
            if not allow_forbidden or len(name) == 1:
                raise form_error
            forbidden.add(name[1:])
        else:
            required.append(frozenset([name]))
    return required, forbidden


def parse_member_of(values, version):
    """All values of one ``member_of<S>`` key -> (list of any-of sets, forbidden set)."""
    if len(values) > 1 and version < (1, 24):
        raise _bad("Multiple member_of parameters are not supported")
    uuid_error = _bad(
        "Invalid query string parameters: Expected 'member_of' parameter to contain "
        "valid UUID(s)."
    )
    member_of, forbidden = [], set()
    for value in values:
        negative = False
        if value.startswith("!"):
            if version < (1, 32):
                raise _bad(
                    "Forbidden member_of parameters are not supported in the specified "
                    "microversion"
                )
            negative, value = True, value[1:]
        if value.startswith("in:"):
            uuids = value[3:].split(",")
        elif "," in value:
            raise _bad(
                "Multiple values for 'member_of' must be prefixed with the 'in:' or "
                "'!in:' keyword using the valid microversion."
            )
        else:
            uuids = [value]
        canonical = [normalize_uuid(u) for u in uuids]
        if not canonical or None in canonical:
            raise uuid_error
        uuids = set(canonical)
        if negative:
            forbidden |= uuids
        else:
            member_of.append(uuids)
    return member_of, forbidden


# Query-schema validators, built (and the schema checked) once per schema;
# the schemas are module constants of candidates_schemas.
_QUERY_VALIDATORS = {}


def _query_validator(schema):
    entry = _QUERY_VALIDATORS.get(id(schema))
    if entry is None or entry[0] is not schema:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        entry = (schema, cls(schema))
        _QUERY_VALIDATORS[id(schema)] = entry
    return entry[1]


def _validate_query(query, version):
    flat = {key: query.getlist(key)[-1] for key in query.keys()}
    # What jsonschema.validate() does, minus re-checking the schema each time.
    validator = _query_validator(candidates_schemas.query_schema(version))
    error = jsonschema.exceptions.best_match(validator.iter_errors(flat))
    if error is not None:
        raise _bad(f"Invalid query string parameters: {error}")


def parse_request(query, version):
    """A Django QueryDict at ``version`` -> :class:`CandidateRequest` (or a 400)."""
    _validate_query(query, version)
    allow_forbidden = version >= (1, 22)
    allow_any = version >= (1, 39)
    key_pattern = _KEY_STRING if version >= (1, 33) else _KEY_NUMBERED
    groups = {}
    for key in query.keys():
        match = key_pattern.match(key)
        if not match:
            continue
        prefix, suffix = match.group(1), match.group(2) or ""
        group = groups.setdefault(suffix, RequestGroup(suffix=suffix))
        values = query.getlist(key)
        if prefix == "resources":
            group.resources = parse_resources(values[-1])
        elif prefix == "required":
            # Before 1.39 the last value wins; from 1.39 repeats are ANDed.
            for value in values if allow_any else values[-1:]:
                required, forbidden = parse_traits(
                    value, allow_forbidden=allow_forbidden, allow_any=allow_any
                )
                group.required.extend(required)
                group.forbidden |= forbidden
        elif prefix == "member_of":
            group.member_of, group.forbidden_aggs = parse_member_of(values, version)
        elif prefix == "in_tree":
            value = values[-1]
            canonical = normalize_uuid(value)
            if canonical is None:
                raise _bad(
                    "Invalid query string parameters: Expected 'in_tree' parameter to be a "
                    f"format of uuid. Got: {value}."
                )
            group.in_tree = canonical

    request = CandidateRequest(groups=[])
    if version >= (1, 36) and "same_subtree" in query:
        for value in query.getlist("same_subtree"):
            suffixes = value.split(",")
            if any(s == "" for s in suffixes):
                raise _bad(
                    "Empty string (unsuffixed group) can not be specified in `same_subtree` ",
                    code=errors.QUERY_BAD_VALUE,
                )
            unknown = [s for s in suffixes if s not in groups or s == ""]
            if unknown:
                raise _bad(
                    "Real suffixes should be specified in `same_subtree`: "
                    f"{', '.join(unknown)} not found in [{', '.join(sorted(g for g in groups if g))}].",
                    code=errors.QUERY_BAD_VALUE,
                )
            request.same_subtree.append(suffixes)

    _check_groups(groups, version, request.same_subtree)

    for suffix, group in groups.items():
        conflict = {name for s in group.required for name in s if len(s) == 1} & group.forbidden
        if conflict:
            raise _bad(
                "Conflicting required and forbidden traits found in the following traits "
                f"keys: required{suffix}: ({', '.join(sorted(conflict))})"
            )
    # the unsuffixed group first, then the others in suffix order
    request.groups = [groups[s] for s in sorted(groups, key=lambda s: (s != "", s))]

    suffixed = [g for g in request.groups if g.suffix]
    if version >= (1, 25):
        policies = query.getlist("group_policy")
        request.group_policy = policies[0] if policies else None
        if len(suffixed) > 1 and not request.group_policy:
            raise _bad(
                'The "group_policy" parameter is required when specifying more than one '
                '"resources{N}" parameter.'
            )
    if version >= (1, 16) and "limit" in query:
        request.limit = int(query.getlist("limit")[0])
    if version >= (1, 35) and "root_required" in query:
        values = query.getlist("root_required")
        if len(values) > 1:
            raise _bad(
                "Query parameter 'root_required' may be specified only once.",
                code=errors.QUERY_DUPLICATE_KEY,
            )
        required, forbidden = parse_traits(
            values[0], allow_forbidden=True, allow_any=False, param="root_required"
        )
        required = {name for s in required for name in s}
        conflict = required & forbidden
        if conflict:
            raise _bad(
                "Conflicting required and forbidden traits found in root_required: "
                + ", ".join(sorted(conflict)),
                code=errors.QUERY_BAD_VALUE,
            )
        request.root_required, request.root_forbidden = required, forbidden
    return request


def _check_groups(groups, version, same_subtree):
    if version >= (1, 36):
        in_subtree = {s for suffixes in same_subtree for s in suffixes}
        resourceless = sorted(s for s, g in groups.items() if not g.resources)
        if "" in resourceless and (
            groups[""].required or groups[""].forbidden or groups[""].member_of
            or groups[""].forbidden_aggs or groups[""].in_tree
        ):
            raise _bad(
                "All request groups must specify resources.", code=errors.QUERY_BAD_VALUE
            )
        if not any(g.resources for g in groups.values()):
            raise _bad(
                "There must be at least one resources or resources[$S] parameter.",
                code=errors.QUERY_MISSING_VALUE,
            )
        bad = [s for s in resourceless if s and s not in in_subtree]
        if bad:
            raise _bad(
                "Resourceless suffixed group request should be specified in `same_subtree` "
                f"query param: bad group(s) - {bad}.",
                code=errors.QUERY_BAD_VALUE,
            )
        return
    orphans = sorted(
        f"required{s}" for s, g in groups.items() if (g.required or g.forbidden) and not g.resources
    )
    if orphans:
        raise _bad(
            "All traits parameters must be associated with resources.  Found the "
            f"following orphaned traits keys: {', '.join(orphans)}"
        )
    orphans = sorted(
        f"member_of{s}"
        for s, g in groups.items()
        if (g.member_of or g.forbidden_aggs) and not g.resources
    )
    if orphans:
        raise _bad(
            "All member_of parameters must be associated with resources. Found the "
            f"following orphaned member_of keys: {', '.join(orphans)}"
        )
    if not all(g.resources for g in groups.values()):
        raise _bad("All request groups must specify resources.")
    if not groups:
        raise _bad("At least one request group (`resources` or `resources{$S}`) is required.")


# --------------------------------------------------------------------------
# 2. the search
# --------------------------------------------------------------------------


def _placeholders(values):
    return ", ".join(["%s"] * len(values))


def _in(column, values):
    """``column IN (...)`` as (sql, params): one array parameter on PostgreSQL
    (``column = ANY(%s)``), so long id lists cost nothing to prepare."""
    values = list(values)
    if connection.vendor == "postgresql":
        if all(type(value) is int for value in values):
            # Ids (the usual, long lists): one array literal, which is far
            # cheaper for the driver to send than a list it must adapt item by item.
            return f"{column} = ANY(%s::bigint[])", ["{" + ",".join(map(str, values)) + "}"]
        return f"{column} = ANY(%s)", [values]
    return f"{column} IN ({_placeholders(values)})", values


def _fetch(sql, params=()):
    with connection.cursor() as cursor:
        cursor.execute(sql, list(params))
        return cursor.fetchall()


def _resolve_names(request):
    """Class and trait names -> ids (two queries); 400 for unknown names."""
    class_names = sorted({name for g in request.groups for name in g.resources})
    trait_names = sorted(
        {n for g in request.groups for s in g.required for n in s}
        | {n for g in request.groups for n in g.forbidden}
        | request.root_required
        | request.root_forbidden
    )
    classes = {}
    if class_names:
        # SELECT id, name FROM resource_classes WHERE name IN (...)
        rows = _fetch(
            f"SELECT name, id FROM resource_classes WHERE name IN ({_placeholders(class_names)})",
            class_names,
        )
        classes = dict(rows)
        missing = [n for n in class_names if n not in classes]
        if missing:
            raise _bad(
                "Invalid resource class in resources parameter: No such resource class "
                f"{missing[0]}."
            )
    # The sharing trait is looked up with the requested ones (same query).
    lookup = sorted(set(trait_names) | {SHARES_TRAIT})
    # SELECT id, name FROM traits WHERE name IN (...)
    traits = dict(
        _fetch(f"SELECT name, id FROM traits WHERE name IN ({_placeholders(lookup)})", lookup)
    )
    missing = [n for n in trait_names if n not in traits]
    if missing:
        raise _bad(f"No such trait(s): {', '.join(missing)}")
    return classes, traits


@dataclass(slots=True)
class _Provider:
    id: int
    uuid: str
    parent_id: int | None
    root_id: int
    traits: set = field(default_factory=set)
    aggs: set = field(default_factory=set)


@dataclass
class _Group:
    """A RequestGroup with names resolved to ids."""

    spec: RequestGroup
    resources: dict  # class id -> amount
    required: list  # list of frozensets of trait ids
    forbidden: set  # trait ids
    in_tree_root: int | None  # root id, -1 when the provider does not exist


def find_candidates(request, version):
    """Run the search: a dict with 'requests' (list of results) and what render needs."""
    classes, trait_ids = _resolve_names(request)
    class_names = {cid: name for name, cid in classes.items()}
    shares_trait = trait_ids.get(SHARES_TRAIT)

    in_tree_uuids = sorted({g.in_tree for g in request.groups if g.in_tree})
    in_tree_roots = {}
    if in_tree_uuids:
        # SELECT uuid, root_id FROM resource_providers WHERE uuid IN (...)
        in_tree_roots = dict(
            _fetch(
                "SELECT uuid, root_id FROM resource_providers "
                f"WHERE uuid IN ({_placeholders(in_tree_uuids)})",
                in_tree_uuids,
            )
        )
    groups = [
        _Group(
            spec=g,
            resources={classes[name]: amount for name, amount in g.resources.items()},
            required=[frozenset(trait_ids[n] for n in s) for s in g.required],
            forbidden={trait_ids[n] for n in g.forbidden},
            in_tree_root=(in_tree_roots.get(g.in_tree, -1) if g.in_tree else None),
        )
        for g in request.groups
    ]

    # Smallest amount asked of each class: inventories that cannot give even
    # that are left in the database.
    smallest = {}
    for g in groups:
        for cid, amount in g.resources.items():
            smallest[cid] = min(amount, smallest.get(cid, amount))
    if not smallest:
        return _empty()

    # Q1: inventories of the requested classes that could serve a requested
    # amount, with their current usage.
    #   SELECT i.resource_provider_id, i.resource_class_id, i.total, i.reserved,
    #          i.min_unit, i.max_unit, i.step_size, i.allocation_ratio,
    #          COALESCE(u.used, 0)
    #   FROM inventories i
    #   LEFT JOIN (SELECT resource_provider_id, resource_class_id, SUM(used) AS used
    #              FROM allocations WHERE resource_class_id IN (:classes)
    #              GROUP BY resource_provider_id, resource_class_id) u
    #     ON u.resource_provider_id = i.resource_provider_id
    #    AND u.resource_class_id = i.resource_class_id
    #   WHERE (i.resource_class_id = :c1 AND i.max_unit >= :a1
    #          AND (i.total - i.reserved) * i.allocation_ratio - COALESCE(u.used, 0) >= :a1)
    #      OR (... one term per requested class ...)
    class_ids = sorted(smallest)
    terms, params = [], list(class_ids)
    for cid in class_ids:
        terms.append(
            "(i.resource_class_id = %s AND i.max_unit >= %s AND "
            "(i.total - i.reserved) * i.allocation_ratio - COALESCE(u.used, 0) >= %s)"
        )
        params += [cid, smallest[cid], smallest[cid]]
    rows = _fetch(
        "SELECT i.resource_provider_id, i.resource_class_id, i.total, i.reserved, "
        "i.min_unit, i.max_unit, i.step_size, i.allocation_ratio, COALESCE(u.used, 0) "
        "FROM inventories i LEFT JOIN ("
        "  SELECT resource_provider_id, resource_class_id, SUM(used) AS used"
        "  FROM allocations"
        f"  WHERE resource_class_id IN ({_placeholders(class_ids)})"
        "  GROUP BY resource_provider_id, resource_class_id) u"
        " ON u.resource_provider_id = i.resource_provider_id"
        " AND u.resource_class_id = i.resource_class_id"
        f" WHERE {' OR '.join(terms)}",
        params,
    )
    inventory = {}  # (rp, rc) -> (capacity, used, min_unit, max_unit, step)
    by_class = {}  # rc -> [rp ...]
    for rp, rc, total, reserved, min_unit, max_unit, step, ratio, used in rows:
        capacity = int((total - reserved) * ratio)
        inventory[(rp, rc)] = (capacity, int(used), min_unit, max_unit, step)
        by_class.setdefault(rc, []).append(rp)
    if not inventory:
        return _empty()
    inventory_providers = sorted({rp for rp, _ in inventory})

    # Q2: which of them are sharing providers.
    #   SELECT resource_provider_id FROM resource_provider_traits
    #   WHERE trait_id = :shares AND resource_provider_id IN (:providers)
    sharing = set()
    if shares_trait is not None:
        clause, clause_params = _in("resource_provider_id", inventory_providers)
        sharing = {
            row[0]
            for row in _fetch(
                "SELECT resource_provider_id FROM resource_provider_traits WHERE trait_id = %s "
                f"AND {clause}",
                [shares_trait] + clause_params,
            )
        }
    # Q3: the trees each sharing provider reaches: roots of every provider
    # that shares an aggregate with it.
    #   SELECT DISTINCT s.resource_provider_id, rp.root_id
    #   FROM resource_provider_aggregates s
    #   JOIN resource_provider_aggregates o ON o.aggregate_id = s.aggregate_id
    #   JOIN resource_providers rp ON rp.id = o.resource_provider_id
    #   WHERE s.resource_provider_id IN (:sharing)
    reaches = {}  # sharing rp -> set of root ids
    if sharing:
        clause, clause_params = _in("s.resource_provider_id", sorted(sharing))
        for rp, root in _fetch(
            "SELECT DISTINCT s.resource_provider_id, rp.root_id "
            "FROM resource_provider_aggregates s "
            "JOIN resource_provider_aggregates o ON o.aggregate_id = s.aggregate_id "
            "JOIN resource_providers rp ON rp.id = o.resource_provider_id "
            f"WHERE {clause}",
            clause_params,
        ):
            reaches.setdefault(rp, set()).add(root)

    # Q4: every provider of the trees involved (the candidates' own trees and
    # the trees the sharing providers reach).
    #   SELECT id, uuid, parent_id, root_id FROM resource_providers
    #   WHERE root_id IN (SELECT root_id FROM resource_providers WHERE id IN (:providers))
    #      OR root_id IN (:reached roots)
    reached_roots = sorted({root for roots in reaches.values() for root in roots})
    clause, params = _in("id", inventory_providers)
    sql = (
        "SELECT id, uuid, parent_id, root_id FROM resource_providers WHERE root_id IN ("
        f"SELECT root_id FROM resource_providers WHERE {clause})"
    )
    if reached_roots:
        clause, more = _in("root_id", reached_roots)
        sql += f" OR {clause}"
        params += more
    providers = {
        pid: _Provider(pid, uuid, parent, root) for pid, uuid, parent, root in _fetch(sql, params)
    }
    provider_ids = sorted(providers)
    # Q5: their traits.  Q6: their aggregates (only when member_of asks).
    #   SELECT resource_provider_id, trait_id FROM resource_provider_traits
    #   WHERE resource_provider_id IN (:tree providers)
    clause, clause_params = _in("resource_provider_id", provider_ids)
    for pid, tid in _fetch(
        f"SELECT resource_provider_id, trait_id FROM resource_provider_traits WHERE {clause}",
        clause_params,
    ):
        providers[pid].traits.add(tid)
    if any(g.spec.member_of or g.spec.forbidden_aggs for g in groups):
        #   SELECT pa.resource_provider_id, a.uuid FROM resource_provider_aggregates pa
        #   JOIN placement_aggregates a ON a.id = pa.aggregate_id
        #   WHERE pa.resource_provider_id IN (:tree providers)
        clause, clause_params = _in("pa.resource_provider_id", provider_ids)
        canonical_aggs = {}  # stored spelling -> canonical uuid (few distinct aggregates)
        for pid, agg in _fetch(
            "SELECT pa.resource_provider_id, a.uuid FROM resource_provider_aggregates pa "
            f"JOIN placement_aggregates a ON a.id = pa.aggregate_id WHERE {clause}",
            clause_params,
        ):
            canonical = canonical_aggs.get(agg)
            if canonical is None:
                canonical = canonical_aggs[agg] = normalize_uuid(agg) or agg
            providers[pid].aggs.add(canonical)

    results = _search(
        request, version, groups, providers, inventory, by_class, sharing, reaches, trait_ids
    )
    return {
        "results": results,
        "providers": providers,
        "class_names": class_names,
        "requested_classes": set(class_ids),
    }


def _empty():
    return {"results": [], "providers": {}, "class_names": {}, "requested_classes": set()}


def _amount_fits(entry, amount):
    capacity, used, min_unit, max_unit, step = entry
    return (
        min_unit <= amount <= max_unit
        and amount % step == 0
        and used + amount <= capacity
    )


def _traits_ok(traits, required, forbidden):
    return all(not traits.isdisjoint(any_of) for any_of in required) and traits.isdisjoint(
        forbidden
    )


def _aggs_ok(aggs, member_of, forbidden_aggs):
    return all(not aggs.isdisjoint(any_of) for any_of in member_of) and aggs.isdisjoint(
        forbidden_aggs
    )


def _search(request, version, groups, providers, inventory, by_class, sharing, reaches, trait_ids):
    from itertools import product

    nested_aware = version >= (1, 29)
    roots_of_trees = {}
    for p in providers.values():
        roots_of_trees.setdefault(p.root_id, []).append(p.id)
    # anchors: root -> sharing providers that reach that tree
    sharing_for_root = {}
    for rp, roots in reaches.items():
        for root in roots:
            sharing_for_root.setdefault(root, set()).add(rp)

    def agg_view(p, spans_tree):
        if not spans_tree or p.parent_id is None:
            return p.aggs
        root = providers.get(p.root_id)
        return p.aggs | (root.aggs if root else set())

    def provider_ok_for(group, p, spans_tree):
        spec = group.spec
        if group.in_tree_root is not None and p.root_id != group.in_tree_root:
            return False
        if (spec.member_of or spec.forbidden_aggs) and not _aggs_ok(
            agg_view(p, spans_tree), spec.member_of, spec.forbidden_aggs
        ):
            return False
        return True

    # Per group, per root: the list of choices.
    per_group = []
    for group in groups:
        choices_by_root = {}
        if group.spec.use_same_provider:
            if group.resources:
                first_class = min(group.resources, key=lambda c: len(by_class.get(c, ())))
                candidates = by_class.get(first_class, ())
            else:
                candidates = sorted(providers)
            for rp in candidates:
                p = providers.get(rp)
                if p is None or not provider_ok_for(group, p, spans_tree=False):
                    continue
                if not _traits_ok(p.traits, group.required, group.forbidden):
                    continue
                if not all(
                    (rp, rc) in inventory and _amount_fits(inventory[(rp, rc)], amount)
                    for rc, amount in group.resources.items()
                ):
                    continue
                choice = combiner.Choice(
                    providers=(rp,),
                    allocs=tuple((rp, rc, a) for rc, a in sorted(group.resources.items())),
                )
                anchors = {p.root_id}
                if rp in sharing and group.resources:
                    anchors |= reaches.get(rp, set())
                for root in anchors:
                    choices_by_root.setdefault(root, []).append(choice)
        else:
            # The unsuffixed group: per tree, per class, the providers able to
            # serve it; then every pick of one provider per class.
            eligible = {}  # (root, rc) -> [rp]
            usable = {}  # rp -> passes the group's tree, aggregate and forbidden filters
            for rc, amount in sorted(group.resources.items()):
                for rp in by_class.get(rc, ()):
                    p = providers.get(rp)
                    if p is None or not _amount_fits(inventory[(rp, rc)], amount):
                        continue
                    ok = usable.get(rp)
                    if ok is None:
                        ok = usable[rp] = provider_ok_for(group, p, spans_tree=True) and not (
                            group.forbidden and p.traits & group.forbidden
                        )
                    if not ok:
                        continue
                    anchors = {p.root_id}
                    if rp in sharing:
                        anchors |= reaches.get(rp, set())
                    for root in anchors:
                        eligible.setdefault((root, rc), []).append(rp)
            classes = sorted(group.resources)
            for root in roots_of_trees:
                options = [eligible.get((root, rc)) for rc in classes]
                if not all(options):
                    continue
                result = []
                for pick in product(*options):
                    used = set(pick)
                    if group.required:
                        traits = set().union(*(providers[rp].traits for rp in used))
                        if not _traits_ok(traits, group.required, set()):
                            continue
                    result.append(
                        combiner.Choice(
                            providers=tuple(sorted(used)),
                            allocs=tuple(
                                (rp, rc, group.resources[rc]) for rp, rc in zip(pick, classes)
                            ),
                        )
                    )
                if result:
                    choices_by_root[root] = result
        per_group.append(choices_by_root)

    # Trees that every group can use, filtered by root_required.
    required_roots = set(per_group[0])
    for choices_by_root in per_group[1:]:
        required_roots &= set(choices_by_root)
    if request.root_required or request.root_forbidden:
        rr = {trait_ids[n] for n in request.root_required}
        rf = {trait_ids[n] for n in request.root_forbidden}
        required_roots = {
            r
            for r in required_roots
            if r in providers and rr <= providers[r].traits and not (rf & providers[r].traits)
        }
    roots = sorted(required_roots)

    suffix_index = {g.spec.suffix: i for i, g in enumerate(groups)}
    ancestors = {}
    for p in providers.values():
        chain, node = {p.id}, p
        while node.parent_id is not None and node.parent_id in providers:
            node = providers[node.parent_id]
            chain.add(node.id)
        ancestors[p.id] = frozenset(chain)
    capacity = {
        key: (entry[0] - entry[1], entry[3]) for key, entry in inventory.items()
    }
    problem = combiner.Problem(
        capacity=capacity,
        isolated_groups=[
            bool(g.spec.use_same_provider and request.group_policy == "isolate") for g in groups
        ],
        same_subtree=[[suffix_index[s] for s in sfx] for sfx in request.same_subtree],
        ancestors=ancestors,
        root_of={pid: p.root_id for pid, p in providers.items()},
        sharing=frozenset(sharing),
        nested_aware=nested_aware,
    )
    strategy = settings.PLACEMENT_ALLOCATION_CANDIDATES_GENERATION_STRATEGY
    cap = settings.PLACEMENT_MAX_ALLOCATION_CANDIDATES
    randomize = settings.PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES
    if request.limit is not None and not randomize:
        cap = request.limit if cap is None or cap < 0 else min(cap, request.limit)
    trees = ((root, [per_group[i][root] for i in range(len(groups))]) for root in roots)
    results = [
        (groups, combination)
        for _, combination in combiner.combine(trees, problem, strategy=strategy, cap=cap)
    ]
    if randomize:
        random.shuffle(results)
    if request.limit is not None:
        results = results[: request.limit]
    return results


# --------------------------------------------------------------------------
# 3. rendering
# --------------------------------------------------------------------------


def render(found, version):
    """The response body for ``version``."""
    results = found["results"]
    providers = found["providers"]
    class_names = found["class_names"]
    allocation_requests = []
    in_requests = set()
    keyed = version >= (1, 12)
    with_mappings = version >= (1, 34)
    for groups, combination in results:
        merged = {}
        mappings = {}
        for group, choice in zip(groups, combination):
            for rp, rc, amount in choice.allocs:
                per = merged.setdefault(rp, {})
                per[rc] = per.get(rc, 0) + amount
            mappings[group.spec.suffix] = sorted(providers[p].uuid for p in choice.providers)
            in_requests.update(choice.providers)
        in_requests.update(merged)
        if keyed:
            body = {
                "allocations": {
                    providers[rp].uuid: {
                        "resources": {class_names[rc]: amt for rc, amt in sorted(res.items())}
                    }
                    for rp, res in merged.items()
                }
            }
            if with_mappings:
                body["mappings"] = mappings
        else:
            body = {
                "allocations": [
                    {
                        "resource_provider": {"uuid": providers[rp].uuid},
                        "resources": {class_names[rc]: amt for rc, amt in sorted(res.items())},
                    }
                    for rp, res in merged.items()
                ]
            }
        allocation_requests.append(body)

    if version >= (1, 29):
        roots = {providers[p].root_id for p in in_requests}
        summary_ids = sorted(p.id for p in providers.values() if p.root_id in roots)
    else:
        summary_ids = sorted(in_requests)
    summaries = {}
    if summary_ids:
        summaries = _summaries(
            summary_ids, providers, version, found["requested_classes"]
        )
    return {"allocation_requests": allocation_requests, "provider_summaries": summaries}


def _summaries(ids, providers, version, requested_classes):
    # Q7: inventories and usage of the summarized providers.
    #   SELECT i.resource_provider_id, rc.name, i.resource_class_id, i.total,
    #          i.reserved, i.allocation_ratio,
    #          (SELECT COALESCE(SUM(a.used), 0) FROM allocations a
    #           WHERE a.resource_provider_id = i.resource_provider_id
    #             AND a.resource_class_id = i.resource_class_id)
    #   FROM inventories i JOIN resource_classes rc ON rc.id = i.resource_class_id
    #   WHERE i.resource_provider_id IN (:providers)
    clause, clause_params = _in("i.resource_provider_id", ids)
    rows = _fetch(
        "SELECT i.resource_provider_id, rc.name, i.resource_class_id, i.total, i.reserved, "
        "i.allocation_ratio, (SELECT COALESCE(SUM(a.used), 0) FROM allocations a "
        "WHERE a.resource_provider_id = i.resource_provider_id "
        "AND a.resource_class_id = i.resource_class_id) "
        "FROM inventories i JOIN resource_classes rc ON rc.id = i.resource_class_id "
        f"WHERE {clause} ORDER BY i.id",
        clause_params,
    )
    all_classes = version >= (1, 27)
    resources = {pid: {} for pid in ids}
    for pid, name, rc, total, reserved, ratio, used in rows:
        if not all_classes and rc not in requested_classes:
            continue
        resources[pid][name] = {"capacity": int((total - reserved) * ratio), "used": int(used)}
    trait_names = {}
    if version >= (1, 17):
        wanted = sorted({t for pid in ids for t in providers[pid].traits})
        if wanted:
            # Q8: SELECT id, name FROM traits WHERE id IN (:trait ids)
            trait_names = dict(
                _fetch(f"SELECT id, name FROM traits WHERE id IN ({_placeholders(wanted)})", wanted)
            )
    summaries = {}
    with_traits = version >= (1, 17)
    with_tree = version >= (1, 29)
    for pid in ids:
        p = providers[pid]
        entry = {"resources": resources[pid]}
        if with_traits:
            entry["traits"] = [trait_names[t] for t in sorted(p.traits)]
        if with_tree:
            parent = providers.get(p.parent_id)
            entry["parent_provider_uuid"] = parent.uuid if parent else None
            entry["root_provider_uuid"] = providers[p.root_id].uuid
        summaries[p.uuid] = entry
    return summaries


def allocation_candidates(query, version):
    """Parse, search and render: the whole GET /allocation_candidates."""
    request = parse_request(query, version)
    return render(find_candidates(request, version), version)
