"""The candidate engine's SQL: one function per statement, its SQL beside it.

A search runs these in a fixed order and a fixed number, whatever the
number of providers (``tests/candidates`` counts them): the names, with
the providers holding the sharing trait (Q0); those of them able to serve
(Q1 scoped to them), the trees they reach (Q3) and their own trees (Q4,
Q5, Q6); then the inventories able to serve (Q1), every provider of the
trees involved (Q4), their traits (Q5) and aggregates (Q6) -- or, when a
group requires traits and no sharing provider is in play, the providers
of the trees holding them (Q4 by trait), every inventory of those
providers (Q1b), Q5 and Q6; for the answer the inventories of the
summarized providers the search did not read (Q7, not needed after Q1b)
and the names of classes it did not ask for. A search
that stops at a limit (``candidates.paging``) reads the span of provider
ids and the sharing providers with what they hold (QS), then, a range of
ids at a time (ranges doubling), the facts of the trees there (QP), and
loads the trees that pass in batches: the sharing providers holding a
requested class that reach the batch (Q3 scoped to it; not run when none
holds one) and every inventory of those not read yet (Q1b),
the batch's providers with those sharing providers' trees (Q4), every
inventory of the batch's providers (Q1b), Q5 and Q6. Raw SQL rather than
the ORM because the statements are few, hot, and easier to read and
EXPLAIN written out.
"""
from typing import NamedTuple

from django.db import connection

from placement_core.database import placeholders
from placement_core.replica import read_rows
from placement_core.uuids import normalize_uuid
from providers.models import capacity_sql


def _in(column: str, values, planned: bool = True) -> tuple[str, list]:
    """``column IN (...)`` as (sql, params): one array parameter on PostgreSQL
    (``column = ANY(%s)``), so long id lists cost nothing to prepare.

    ``planned=False`` (ids only) hands PostgreSQL's planner the array as
    the value of a sub-select, which it does not look into: it then does
    not weigh every id against the column's statistics (for Q1b's two
    lists of 7,000 ids at 1,000 nested trees, 4-6 ms of planning; 9-18 ms
    for 13,000 to 45,000 rows at 100,000 providers), and Q1b keeps its
    index scans from 400 to 130,000 rows at 100,000 providers. Not for a
    small table: it is scanned whole, and an unseen array is then searched
    element by element for every row (Q5 and Q6 on 1,000 flat providers
    went from 1.1 to 2.3 ms); :func:`_planned` says when."""
    values = list(values)
    if connection.vendor == "postgresql":
        if not values or set(map(type, values)) == {int}:  # C speed: lists of 50,000 ids
            # Ids (the usual, long lists): one array literal, which is far
            # cheaper for the driver to send than a list it must adapt item by item.
            array = "%s::bigint[]" if planned else "(SELECT %s::bigint[])::bigint[]"
            return f"{column} = ANY({array})", ["{" + ",".join(map(str, values)) + "}"]
        return f"{column} = ANY(%s)", [values]
    return f"{column} IN ({placeholders(values)})", values


def _planned(ids) -> bool:
    """Whether Q5 and Q6 hand ``ids`` to the planner: only while it is short.

    Their tables are small on a small cloud (500 trait rows on the flat
    bench), where an unseen list costs a scan searching it row by row (0.4
    against 1.2 ms for 500 ids); but the planner's look at each id costs
    more than it saves once the list is long: PostgreSQL's own planning and
    execution time for Q5 at 2,000 ids 3.1 ms planned against 1.8, at 7,000
    (1,000 nested trees) 9.1 against 4.3, at 48,000 (100,000 providers) 62
    against 48, and Q6 at 48,000 56 against 41."""
    return len(ids) < 2000


class Names(NamedTuple):
    """What :func:`names` read."""

    class_ids: dict  # name -> id, of the classes named (unknown names are absent)
    trait_ids: dict  # name -> id, of the traits named (unknown names are absent)
    roots: dict  # provider uuid -> root id, of the providers named
    holders: list  # ids of the providers with the trait ``holding``, ascending


def names(classes, traits, uuids, holding: str) -> Names:
    """Q0: a request's names to ids, and the providers with one trait (the
    sharing one), in one round trip; each kind of row tagged by its first
    column.

    SELECT 0, name, id FROM resource_classes WHERE name IN (:classes)
    UNION ALL SELECT 1, name, id FROM traits WHERE name IN (:traits)
    UNION ALL SELECT 2, uuid, root_provider_id FROM resource_providers WHERE uuid IN (:uuids)
    UNION ALL SELECT 3, '', t.resource_provider_id FROM resource_provider_traits t
              JOIN traits n ON n.id = t.trait_id WHERE n.name = :holding
    """
    parts, params = [], []
    for select, values in (
            ("SELECT 0, name, id FROM resource_classes WHERE name", classes),
            ("SELECT 1, name, id FROM traits WHERE name", traits),
            ("SELECT 2, uuid, root_provider_id FROM resource_providers WHERE uuid", uuids)):
        values = sorted(values)
        if values:
            parts.append(f"{select} IN ({placeholders(values)})")
            params += values
    parts.append("SELECT 3, '', t.resource_provider_id FROM resource_provider_traits t "
                 "JOIN traits n ON n.id = t.trait_id WHERE n.name = %s")
    params.append(holding)
    found = Names({}, {}, {}, [])
    by_kind = (found.class_ids, found.trait_ids, found.roots)
    for kind, name, value in read_rows(" UNION ALL ".join(parts), params):
        if kind == 3:
            found.holders.append(value)
        else:
            by_kind[kind][name] = value
    found.holders.sort()
    return found


# Q1 and Q1b: inventories with their usage, in the rows the engine files
# (candidates.context.add_inventory); only which usage is summed and which inventories
# are kept differ.
_WITH_USAGE = (
    "SELECT i.resource_provider_id, i.resource_class_id, i.total, i.reserved, "
    "i.min_unit, i.max_unit, i.step_size, i.allocation_ratio, COALESCE(u.used, 0), i.id "
    "FROM inventories i LEFT JOIN ("
    "  SELECT resource_provider_id, resource_class_id, SUM(used) AS used"
    "  FROM allocations WHERE {usage}"
    "  GROUP BY resource_provider_id, resource_class_id) u"
    " ON u.resource_provider_id = i.resource_provider_id"
    " AND u.resource_class_id = i.resource_class_id"
    " WHERE {where}"
)


def usable_inventories(smallest: dict, providers=None) -> list:
    """Q1: inventories of the requested classes able to serve the smallest
    amount asked of their class, with their current usage. ``smallest``:
    {class id: amount}. Rows: (provider, class, total, reserved, min_unit,
    max_unit, step_size, allocation_ratio, used, inventory id).

    SELECT i.resource_provider_id, i.resource_class_id, i.total, i.reserved,
           i.min_unit, i.max_unit, i.step_size, i.allocation_ratio,
           COALESCE(u.used, 0), i.id
    FROM inventories i
    LEFT JOIN (SELECT resource_provider_id, resource_class_id, SUM(used) AS used
               FROM allocations WHERE resource_class_id IN (:classes)
                     [AND resource_provider_id IN (:providers)]
               GROUP BY resource_provider_id, resource_class_id) u
      ON u.resource_provider_id = i.resource_provider_id
     AND u.resource_class_id = i.resource_class_id
    WHERE ((i.resource_class_id = :c1 AND i.max_unit >= :a1
            AND <capacity of i> - COALESCE(u.used, 0) >= :a1)
        OR (... one term per requested class ...))
      [AND i.resource_provider_id IN (:providers)]

    ``providers``: only these providers' inventories. A list of ids rather
    than a subquery: with the subquery PostgreSQL misjudged how many rows
    the OR of capacity terms keeps and probed every inventory row by index.
    """
    classes = sorted(smallest)
    # A scoped search sums the usage of its own providers only, not of the
    # whole cloud's allocations.
    usage, usage_params = f"resource_class_id IN ({placeholders(classes)})", list(classes)
    if providers is not None:
        clause, more = _in("resource_provider_id", providers)
        usage += f" AND {clause}"
        usage_params += more
    terms, params = [], []
    for cid in classes:
        terms.append(
            "(i.resource_class_id = %s AND i.max_unit >= %s AND "
            f"{capacity_sql('i')} - COALESCE(u.used, 0) >= %s)"
        )
        params += [cid, smallest[cid], smallest[cid]]
    where = f"({' OR '.join(terms)})"
    if providers is not None:
        clause, more = _in("i.resource_provider_id", providers)
        where += f" AND {clause}"
        params += more
    return read_rows(_WITH_USAGE.format(usage=usage, where=where), usage_params + params)


def provider_inventories(providers) -> list:
    """Q1b: every inventory of ``providers``, of any class and however full,
    with its usage; rows as Q1's. For trees chosen before their inventories
    are read (a batch of a limited search, or the trees holding a required trait): the
    search keeps the rows able to serve, the summaries use them all, and Q7
    is not needed for these providers.

    Q1's statement, with the usage summed over
    ``resource_provider_id IN (:providers)`` and kept inventories
    ``WHERE i.resource_provider_id IN (:providers)``.
    """
    usage, usage_params = _in("resource_provider_id", providers, planned=False)
    where, params = _in("i.resource_provider_id", providers, planned=False)
    return read_rows(_WITH_USAGE.format(usage=usage, where=where), usage_params + params)


def class_names(ids) -> dict:
    """{class id: name} of the classes with these ids.

    SELECT id, name FROM resource_classes WHERE id IN (:ids)
    """
    ids = sorted(ids)
    return dict(read_rows(f"SELECT id, name FROM resource_classes WHERE id IN ({placeholders(ids)})",
                          ids))


def trees_reached(sharing, roots=None) -> dict:
    """Q3: {sharing provider: root ids of every provider sharing an aggregate
    with it}; with ``roots``, only those roots (a limited search asks about
    the trees it is about to load, not the whole cloud's).

    SELECT DISTINCT s.resource_provider_id, rp.root_provider_id
    FROM resource_provider_aggregates s
    JOIN resource_provider_aggregates o ON o.aggregate_id = s.aggregate_id
    JOIN resource_providers rp ON rp.id = o.resource_provider_id
    WHERE s.resource_provider_id IN (:sharing) [AND rp.root_provider_id IN (:roots)]
    """
    reaches = {}
    clause, params = _in("s.resource_provider_id", sorted(sharing))
    if roots is not None:
        more, extra = _in("rp.root_provider_id", sorted(roots))
        clause += f" AND {more}"
        params += extra
    # MariaDB's optimizer may start at resource_providers and walk every
    # member of every zone back through the aggregate table (0.2-0.6 s at
    # 100,000 providers against 0.06-0.1 s); STRAIGHT_JOIN keeps the written
    # order, from the few sharing providers outwards. PostgreSQL plans it well.
    join = "STRAIGHT_JOIN" if connection.vendor == "mysql" else "JOIN"
    for rp, root in read_rows(
        "SELECT DISTINCT s.resource_provider_id, rp.root_provider_id "
        "FROM resource_provider_aggregates s "
        f"{join} resource_provider_aggregates o ON o.aggregate_id = s.aggregate_id "
        f"{join} resource_providers rp ON rp.id = o.resource_provider_id "
        f"WHERE {clause}",
        params,
    ):
        reaches.setdefault(rp, set()).add(root)
    return reaches


def tree_providers(provider_ids, reached_roots) -> list:
    """Q4: (id, uuid, parent id, root id) of every provider in the trees of
    ``provider_ids`` and in the trees ``reached_roots``.

    SELECT id, uuid, parent_provider_id, root_provider_id FROM resource_providers
    WHERE root_provider_id IN (SELECT root_provider_id FROM resource_providers WHERE id IN (:providers))
    UNION
    SELECT id, uuid, parent_provider_id, root_provider_id FROM resource_providers
    WHERE root_provider_id IN (:reached roots)

    A UNION rather than one WHERE with OR: PostgreSQL read the whole table
    for the OR (230-450 ms at 100,000 providers under load).
    """
    columns = "SELECT id, uuid, parent_provider_id, root_provider_id FROM resource_providers"
    parts, params = [], []
    if provider_ids:
        clause, more = _in("id", provider_ids)
        parts.append(f"{columns} WHERE root_provider_id IN "
                     f"(SELECT root_provider_id FROM resource_providers WHERE {clause})")
        params += more
    if reached_roots:
        clause, more = _in("root_provider_id", reached_roots)
        parts.append(f"{columns} WHERE {clause}")
        params += more
    if not parts:
        return []
    return read_rows(" UNION ".join(parts), params)


def trees_holding(trait_sets) -> list:
    """Q4 for the trees where, for each of ``trait_sets`` (trait ids), some
    provider has one of the set's traits: (id, uuid, parent id, root id) of
    their every provider.

    SELECT id, uuid, parent_provider_id, root_provider_id FROM resource_providers
    WHERE root_provider_id IN (SELECT h.root_provider_id FROM resource_provider_traits t
                               JOIN resource_providers h ON h.id = t.resource_provider_id
                               WHERE t.trait_id IN (:first set))
      [AND root_provider_id IN (... one sub-select per further set)]

    The roots as sub-selects rather than read first and sent back as a list:
    a round trip less for each set, and at 100,000 providers as fast or
    faster (25-69 ms against 26-123 ms for 10,000 to 38,000 trait holders).
    """
    clauses, params = [], []
    for ids in trait_sets:
        ids = sorted(ids)
        clauses.append(
            "root_provider_id IN (SELECT h.root_provider_id FROM resource_provider_traits t "
            "JOIN resource_providers h ON h.id = t.resource_provider_id "
            f"WHERE t.trait_id IN ({placeholders(ids)}))")
        params += ids
    return read_rows("SELECT id, uuid, parent_provider_id, root_provider_id FROM resource_providers "
                     f"WHERE {' AND '.join(clauses)}", params)


def provider_traits(provider_ids) -> list:
    """Q5: (provider id, trait id, trait name) of the traits of
    ``provider_ids``. The names come along for the summaries: one statement
    fewer than reading them after.

    SELECT t.resource_provider_id, t.trait_id, n.name FROM resource_provider_traits t
    JOIN traits n ON n.id = t.trait_id WHERE t.resource_provider_id IN (:providers)
    """
    clause, params = _in("t.resource_provider_id", provider_ids, _planned(provider_ids))
    return read_rows("SELECT t.resource_provider_id, t.trait_id, n.name FROM resource_provider_traits t "
                     f"JOIN traits n ON n.id = t.trait_id WHERE {clause}", params)


def provider_aggregates(provider_ids) -> list:
    """Q6: (provider id, canonical aggregate uuid) pairs of ``provider_ids``.

    SELECT pa.resource_provider_id, a.uuid FROM resource_provider_aggregates pa
    JOIN placement_aggregates a ON a.id = pa.aggregate_id
    WHERE pa.resource_provider_id IN (:providers)

    Not in Q5's statement as a UNION ALL: at 100,000 providers PostgreSQL
    ran the two halves in parallel workers, whose start took longer than
    both (22 ms against 9 for a batch of 1,000 trees).
    """
    clause, params = _in("pa.resource_provider_id", provider_ids, _planned(provider_ids))
    canonical = {}  # stored spelling -> canonical uuid (few distinct aggregates)
    pairs = []
    for pid, agg in read_rows(
        "SELECT pa.resource_provider_id, a.uuid FROM resource_provider_aggregates pa "
        f"JOIN placement_aggregates a ON a.id = pa.aggregate_id WHERE {clause}",
        params,
    ):
        spelled = canonical.get(agg)
        if spelled is None:
            spelled = canonical[agg] = normalize_uuid(agg) or agg
        pairs.append((pid, spelled))
    return pairs


def summary_inventories(provider_ids, known_ids=()) -> list:
    """Q7: inventories and usage of the summarized providers, but for those
    already loaded by Q1 (``known_ids``, inventory ids). Rows: (inventory
    id, provider, class name, class id, total, reserved, allocation_ratio,
    used).

    SELECT i.id, i.resource_provider_id, rc.name, i.resource_class_id,
           i.total, i.reserved, i.allocation_ratio,
           (SELECT COALESCE(SUM(a.used), 0) FROM allocations a
            WHERE a.resource_provider_id = i.resource_provider_id
              AND a.resource_class_id = i.resource_class_id)
    FROM inventories i JOIN resource_classes rc ON rc.id = i.resource_class_id
    WHERE i.resource_provider_id IN (:providers) [AND i.id NOT IN (:known)]
    """
    clause, params = _in("i.resource_provider_id", provider_ids)
    if known_ids:
        known, more = _in("i.id", known_ids)
        clause += f" AND NOT ({known})"
        params += more
    return read_rows(
        "SELECT i.id, i.resource_provider_id, rc.name, i.resource_class_id, i.total, "
        "i.reserved, i.allocation_ratio, (SELECT COALESCE(SUM(a.used), 0) FROM allocations a "
        "WHERE a.resource_provider_id = i.resource_provider_id "
        "AND a.resource_class_id = i.resource_class_id) "
        "FROM inventories i JOIN resource_classes rc ON rc.id = i.resource_class_id "
        f"WHERE {clause}",
        params,
    )


# -- A limited search's prefilter (candidates.paging) -------------------------------


def _capable(smallest: dict, alias: str = "i") -> tuple[str, list]:
    """Inventories whose size alone (usage aside) can give the smallest amount
    asked of their class: no allocation is summed."""
    terms, params = [], []
    for cid in sorted(smallest):
        terms.append(f"({alias}.resource_class_id = %s AND {alias}.max_unit >= %s "
                     f"AND {capacity_sql(alias)} >= %s)")
        params += [cid, smallest[cid], smallest[cid]]
    return f"({' OR '.join(terms)})", params


def provider_id_span() -> tuple:
    """(lowest, highest) provider id, (0, 0) with none: where a limited
    search's ranges of ids start and end.

    SELECT MIN(id), MAX(id) FROM resource_providers
    """
    first, last = read_rows("SELECT MIN(id), MAX(id) FROM resource_providers")[0]
    return first or 0, last or 0


def aggregate_ids() -> list:
    """(id, uuid as stored) of every aggregate, for member_of's uuids in any spelling.

    SELECT id, uuid FROM placement_aggregates
    """
    return read_rows("SELECT id, uuid FROM placement_aggregates")


# Fact kinds in the rows of sharing_facts and root_facts.
CLASS, AGGREGATE, TRAIT, ROOT = 0, 1, 2, 3


def sharing_facts(sharing, smallest: dict) -> list:
    """QS: (provider, kind, value) of the sharing providers: the classes
    they hold big enough (CLASS, class id), their aggregates (AGGREGATE,
    id) and their traits (TRAIT, id).

    SELECT i.resource_provider_id, 0, i.resource_class_id FROM inventories i
    WHERE i.resource_provider_id IN (:sharing) AND <capacity terms>
    UNION ALL SELECT resource_provider_id, 1, aggregate_id FROM resource_provider_aggregates
    WHERE resource_provider_id IN (:sharing)
    UNION ALL SELECT resource_provider_id, 2, trait_id FROM resource_provider_traits
    WHERE resource_provider_id IN (:sharing)
    """
    ids = sorted(sharing)
    inv, inv_params = _in("i.resource_provider_id", ids)
    agg, agg_params = _in("resource_provider_id", ids)
    capable, capable_params = _capable(smallest)
    return read_rows(
        f"SELECT i.resource_provider_id, {CLASS}, i.resource_class_id FROM inventories i "
        f"WHERE {inv} AND {capable} "
        f"UNION ALL SELECT resource_provider_id, {AGGREGATE}, aggregate_id "
        f"FROM resource_provider_aggregates WHERE {agg} "
        f"UNION ALL SELECT resource_provider_id, {TRAIT}, trait_id "
        f"FROM resource_provider_traits WHERE {agg}",
        inv_params + capable_params + agg_params + agg_params)


def root_facts(roots, smallest: dict, aggregates, traits) -> list:
    """QP: (root, kind, value) for the trees whose roots are ``roots``: a
    range (after, last] of ids (``last`` None: every root after ``after``)
    or a list of ids. The classes some provider of the tree holds big
    enough (CLASS), and which of ``aggregates`` (AGGREGATE) and ``traits``
    (TRAIT) some provider of it is in or has; with none of the three
    asked, every root (ROOT, 0). What a limited search reads before it
    loads a tree.

    SELECT p.root_provider_id, 0, i.resource_class_id
    FROM resource_providers p JOIN inventories i ON i.resource_provider_id = p.id
    WHERE p.root_provider_id > :after AND p.root_provider_id <= :last AND <capacity terms>
    UNION ALL SELECT p.root_provider_id, 1, o.aggregate_id
    FROM resource_providers p JOIN resource_provider_aggregates o ON o.resource_provider_id = p.id
    WHERE <the same roots> AND o.aggregate_id IN (:aggregates)
    UNION ALL SELECT p.root_provider_id, 2, t.trait_id
    FROM resource_providers p JOIN resource_provider_traits t ON t.resource_provider_id = p.id
    WHERE <the same roots> AND t.trait_id IN (:traits)
    """
    if isinstance(roots, tuple):
        after, last = roots
        span, span_params = "p.root_provider_id > %s", [after]
        if last is not None:
            span += " AND p.root_provider_id <= %s"
            span_params.append(last)
    else:
        span, span_params = _in("p.root_provider_id", roots)
    parts, params = [], []
    if smallest:
        capable, more = _capable(smallest)
        parts.append(f"SELECT p.root_provider_id, {CLASS}, i.resource_class_id "
                     "FROM resource_providers p JOIN inventories i "
                     f"ON i.resource_provider_id = p.id WHERE {span} AND {capable}")
        params += span_params + more
    for kind, table, column, values in (
            (AGGREGATE, "resource_provider_aggregates", "aggregate_id", aggregates),
            (TRAIT, "resource_provider_traits", "trait_id", traits)):
        if values:
            clause, more = _in(f"o.{column}", sorted(values))
            parts.append(f"SELECT p.root_provider_id, {kind}, o.{column} "
                         f"FROM resource_providers p JOIN {table} o "
                         f"ON o.resource_provider_id = p.id WHERE {span} AND {clause}")
            params += span_params + more
    if not parts:
        return read_rows(f"SELECT p.root_provider_id, {ROOT}, 0 FROM resource_providers p "
                         f"WHERE p.parent_provider_id IS NULL AND {span}", span_params)
    return read_rows(" UNION ALL ".join(parts), params)
