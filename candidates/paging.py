"""Which trees a limited search loads, and in what batches.

With ``limit`` and no shuffling the answer is the first candidates in root
order, so the search walks the roots in order and stops at the limit
(``candidates.choices.Trees.load``). Loading a tree costs its providers,
their traits and every inventory with its usage summed over its
allocations; at 100,000 providers most trees cannot serve a given request
(an Ironic node a VCPU one, a compute node a CUSTOM_BAREMETAL_GOLD one), so
the walk first reads cheap facts about the trees of a range of provider
ids (``sql.root_facts``: which requested classes some provider holds big
enough, which of the asked aggregates and traits it has), then, if that
did not fill the answer, the roots of the trees meeting its rarest need,
and loads only the trees whose facts meet every :class:`Need`. A need
is only ever a condition every serving tree meets, so no tree that could
serve is skipped and the answer stays exactly what loading every tree would
give; usage, the traits judged together and everything else are still
checked on the loaded trees as before.

The trees that pass are loaded in batches sized by how many candidates a
tree has given so far, so the search loads about as many trees as its
answer needs.
"""
from __future__ import annotations

from dataclasses import dataclass

from candidates import sql
from candidates.context import SearchContext
from placement_core.uuids import normalize_uuid

# Provider ids in the first range read; each later one is twice as long.
FIRST_RANGE = 1000
# Ranges read before the walk turns to the trees meeting its most
# selective need: one. Reading a range costs about as much whatever its
# length once the planner takes a common class's inventories from the
# class index (100 ms under load at 100,000 providers), and a request whose
# trees are dense (nova's) fills its answer from the first.
DENSE_RANGES = 1
# Trees in the first batch loaded, before any has shown how many
# candidates a tree gives.
FIRST_BATCH = 100


@dataclass(frozen=True)
class Need:
    """A tree serves only if it has at least one of these facts, each a
    (kind, value) pair of ``sql.root_facts``' kinds."""

    facts: frozenset


def needs(ctx: SearchContext, smallest: dict, sharing: list) -> tuple[list | None, list]:
    """The needs of the request (None: no tree can serve), and which of
    ``sharing`` hold a requested class big enough to serve, ascending.
    ``sharing``: the ids of the providers with the sharing trait, any of
    which may serve a tree from outside it, through an aggregate; one that
    holds none of the requested classes serves no tree, and the batches
    need not ask which trees it reaches (an Ironic request beside sharing
    disk pools)."""
    offered, sharing_aggs, sharing_traits = {}, {}, set()
    if sharing:
        for rp, kind, value in sql.sharing_facts(sharing, smallest):
            if kind == sql.CLASS:
                offered.setdefault(value, set()).add(rp)
            elif kind == sql.AGGREGATE:
                sharing_aggs.setdefault(rp, set()).add(value)
            else:
                sharing_traits.add(value)
    aggregate_ids = _aggregate_ids(ctx)
    out = []
    for group in ctx.groups:
        bound = not group.resources  # a group without resources uses the tree's own providers
        for cid in group.resources:
            # The tree holds the class, or is reached by a sharing provider holding it.
            facts = {(sql.CLASS, cid)}
            for rp in offered.get(cid, ()):
                facts |= {(sql.AGGREGATE, agg) for agg in sharing_aggs.get(rp, ())}
            bound |= cid not in offered
            out.append(Need(frozenset(facts)))
        # A required trait no sharing provider has is on a provider of the tree.
        for any_of in group.required:
            if any_of.isdisjoint(sharing_traits):
                out.append(Need(frozenset((sql.TRAIT, t) for t in any_of)))
        if not bound:
            continue
        # The group takes something from the tree itself: that provider, or
        # its root, is in one of each member_of set, and the tree is in_tree's.
        for any_of in group.spec.member_of.any_of:
            out.append(Need(frozenset(
                (sql.AGGREGATE, agg) for uuid in any_of for agg in aggregate_ids.get(uuid, ()))))
        if group.in_tree_root is not None:
            out.append(Need(frozenset({(sql.ROOT, group.in_tree_root)})))
    serving = sorted({rp for holders in offered.values() for rp in holders})
    if any(not need.facts for need in out):
        return None, serving
    return out, serving


def _aggregate_ids(ctx: SearchContext) -> dict:
    """{canonical uuid: ids of the aggregates stored in any spelling of it},
    read only when a group asks for member_of."""
    if not any(g.spec.member_of.any_of for g in ctx.groups):
        return {}
    ids = {}
    for agg_id, stored in sql.aggregate_ids():
        ids.setdefault(normalize_uuid(stored) or stored, set()).add(agg_id)
    return ids


def serving_roots(smallest: dict, wanted: list):
    """Yield, in order, the roots of the trees meeting every need in
    ``wanted``: a range of provider ids at a time (ranges doubling) while
    the trees that pass are dense; once DENSE_RANGES ranges have not filled
    the answer, from the trees meeting the need fewest trees have met so
    far (:func:`_driven`); the trees loaded are judged in full."""
    asked = _asked(smallest, wanted)
    first, last = sql.provider_id_span()
    after, size, ranges = first - 1, FIRST_RANGE, 0
    met = [0] * len(wanted)  # per need, the trees met so far
    while after < last:
        if ranges >= DENSE_RANGES and wanted:
            yield from _driven(after, asked, wanted[min(range(len(wanted)), key=met.__getitem__)])
            return
        upto = after + size
        yield from _passing(sql.root_facts((after, upto), *asked), wanted, met)
        after, size, ranges = upto, size * 2, ranges + 1


def _asked(smallest: dict, wanted: list) -> tuple:
    """What ``sql.root_facts`` is to read for ``wanted``: ({class: smallest
    amount}, aggregate ids, trait ids)."""
    kinds = {sql.CLASS: set(), sql.AGGREGATE: set(), sql.TRAIT: set(), sql.ROOT: set()}
    for need in wanted:
        for kind, value in need.facts:
            kinds[kind].add(value)
    classes = {cid: amount for cid, amount in smallest.items() if cid in kinds[sql.CLASS]}
    return classes, kinds[sql.AGGREGATE], kinds[sql.TRAIT]


def _passing(rows, wanted: list, met=None):
    """The roots of ``rows`` (root facts) meeting every need, in order;
    counts into ``met`` the roots meeting each need."""
    facts = {}
    for root, kind, value in rows:
        held = facts.get(root)
        if held is None:
            facts[root] = {(kind, value), (sql.ROOT, root)}
        else:
            held.add((kind, value))
    for root in sorted(facts):
        held = facts[root]
        passes = True
        for index, need in enumerate(wanted):
            if held.isdisjoint(need.facts):
                passes = False
            elif met is not None:
                met[index] += 1
        if passes:
            yield root


def _driven(after: int, asked: tuple, driver: Need):
    """The roots after ``after`` meeting ``driver``, in one read (found from
    the index of its class, aggregate or trait: an Ironic class is on one
    node in three). The other needs are not read for them: the trees
    meeting the most selective need are few, and loading one is what
    judges it anyway, where reading the other needs' facts for a list of
    trees had the planners read every inventory of their classes."""
    own = {kind: {value for k, value in driver.facts if k == kind}
           for kind in (sql.CLASS, sql.AGGREGATE, sql.TRAIT, sql.ROOT)}
    if own[sql.ROOT]:  # in_tree names the tree itself (-1: none)
        yield from sorted(root for root in own[sql.ROOT] if root > after)
        return
    classes = {c: a for c, a in asked[0].items() if c in own[sql.CLASS]}
    # Every fact read is one of the driver's: each root read meets it.
    yield from sorted({row[0] for row in sql.root_facts(
        (after, None), classes, own[sql.AGGREGATE], own[sql.TRAIT])})


def batches(roots, produced, wanted: int):
    """Group ``roots`` into the batches to load: the first of FIRST_BATCH
    trees, then as many as the candidates still missing need at the rate
    the trees loaded so far gave them. ``produced()``: candidates so far."""
    batch, loaded = [], 0
    size = min(FIRST_BATCH, wanted)
    for root in roots:
        batch.append(root)
        if len(batch) >= size:
            yield batch
            loaded += len(batch)
            batch = []
            done = produced()
            rate = done / loaded if done else 1
            size = max(1, int((wanted - done) / rate * 1.1) + 1)
    if batch:
        yield batch
