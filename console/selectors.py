"""Reads behind the console pages.

Each function runs a fixed number of queries whatever the data size (the
page tests hold them to it): aggregate in SQL, join in Python by id.
"""
from __future__ import annotations

import dataclasses
import itertools
from collections import defaultdict

import os_traits
from django.db.models import Count, Exists, OuterRef, Q, Sum

from allocations.models import Allocation, Consumer, ConsumerType
from allocations.selectors import provider_forest
from candidates import explain
from candidates.query import parse_query
from operations import history, snapshots
from operations.models import UsageSnapshot
from planning import drain, failures, forecast
from planning.headroom import flavor_list, headroom
from planning.models import Flavor
from planning.models import SchedulingFailure
from providers import selectors as provider_selectors
from providers.filters import ResourceProviderFilterSet
from providers.models import Aggregate, ProviderAggregate, ProviderTrait, ResourceProvider
from providers.references import aggregate_members  # noqa: F401 (the views read it here)
from resource_classes.models import ResourceClass

# Three families of reads have a module of their own; the views reach them here.
from console.audit_findings import Finding, audit_findings  # noqa: F401
from console.capacities import (  # noqa: F401
    Capacity,
    capacities,
    class_totals,
    fullest_providers,
    tree_totals,
)
from console.fullness import (  # noqa: F401
    full_at_least,
    inventory_class_names,
    sort_by_fullness,
    with_fullness,
)

SHARING_TRAIT = os_traits.MISC_SHARES_VIA_AGGREGATE


def counts() -> dict[str, int]:
    return {
        "providers": ResourceProvider.objects.count(),
        "root_providers": ResourceProvider.objects.filter(parent__isnull=True).count(),
        "consumers": Consumer.objects.count(),
        "allocations": Allocation.objects.count(),
        # Those with members: an aggregate exists only as memberships (the
        # row of one every provider left stays, and no API shows it).
        "aggregates": ProviderAggregate.objects.values("aggregate_id").distinct().count(),
        "custom_classes": ResourceClass.objects.filter(name__startswith="CUSTOM_").count(),
    }


def provider_tree(provider: ResourceProvider) -> list[tuple[int, ResourceProvider]]:
    """The provider's whole tree, depth-first, as (depth, provider) (1 query)."""
    members = list(ResourceProvider.objects.filter(root_id=provider.root_id or provider.pk)
                   .order_by("name"))
    if provider not in members:
        members.append(provider)
    children = defaultdict(list)
    ids = {m.pk for m in members}
    roots = []
    for m in members:
        if m.parent_id in ids:
            children[m.parent_id].append(m)
        else:
            roots.append(m)
    out = []

    def walk(node, depth):
        out.append((depth, node))
        for child in children[node.pk]:
            walk(child, depth + 1)

    for r in roots:
        walk(r, 0)
    return out


def sharing_providers(provider: ResourceProvider, aggregate_ids) -> list[ResourceProvider]:
    """Other providers that share resources with this one through an aggregate."""
    if not aggregate_ids:
        return []
    return list(
        ResourceProvider.objects.filter(
            providertrait__trait__name=SHARING_TRAIT,
            provideraggregate__aggregate_id__in=aggregate_ids,
        ).exclude(pk=provider.pk).distinct().order_by("name")[:100]
    )


def provider_consumers(provider: ResourceProvider, limit=200):
    """Consumers holding allocations on the provider, with what they hold (1 query)."""
    by_consumer = {}
    rows = (Allocation.objects.filter(resource_provider=provider)
            .select_related("consumer__project", "consumer__user", "consumer__consumer_type",
                            "resource_class")
            .order_by("consumer__uuid", "resource_class__name"))
    for a in rows:
        entry = by_consumer.setdefault(a.consumer_id, {"consumer": a.consumer, "resources": []})
        entry["resources"].append((a.resource_class.name, a.used))
        if len(by_consumer) > limit:
            break
    return list(by_consumer.values())[:limit], len(by_consumer) > limit


def provider_consumer_rows(provider: ResourceProvider):
    """Every allocation on the provider as (consumer uuid, project, user,
    consumer type, class, used) rows, by consumer, streamed (the CSV)."""
    return (Allocation.objects.filter(resource_provider=provider)
            .order_by("consumer__uuid", "resource_class__name")
            .values_list("consumer__uuid", "consumer__project__external_id",
                         "consumer__user__external_id", "consumer__consumer_type__name",
                         "resource_class__name", "used")
            .iterator(chunk_size=2000))


def consumer_allocations(consumer: Consumer):
    return list(Allocation.objects.filter(consumer=consumer)
                .select_related("resource_provider", "resource_class")
                .order_by("resource_provider__name", "resource_class__name"))


def usage_by_class_chart(rows: list[Capacity]):
    """Rows scaled for the horizontal bar chart of the overview."""
    return [r for r in rows if r.capacity or r.used]


# --- the forest ---------------------------------------------------------------

FOREST_TREES = 200
# Traits named on a forest row before "+N more" (all of them on hover).
FOREST_TRAITS = 3
# Trees a sharing pool names on its tree before "+N more" (all of them in
# the expandable list, up to FOREST_SERVED_LISTED).
FOREST_SERVED = 5
FOREST_SERVED_LISTED = 200


@dataclasses.dataclass
class TreeLink:
    """A tree named on another tree's block: its root's uuid and name, and
    whether it is on the page (a link to its block) or not (a search)."""

    uuid: str
    name: str
    shown: bool


@dataclasses.dataclass
class Pool:
    """A sharing provider of a tree and the other trees it serves."""

    node: object  # allocations.selectors.ForestNode
    colour: int  # the same marker on the pool and on each tree it serves
    serves: list  # [TreeLink]


@dataclasses.dataclass
class Tree:
    """One provider tree of the forest page: its nodes depth-first, and per
    resource class the tree's capacity and usage summed over every node."""

    root: object  # allocations.selectors.ForestNode
    nodes: list
    totals: dict  # class name -> {"capacity": n, "used": n}
    consumers: int
    pools: list = dataclasses.field(default_factory=list)  # [Pool] in this tree
    served_by: list = dataclasses.field(default_factory=list)  # [(Pool, TreeLink of its tree)]


def _totals(nodes) -> dict:
    totals = {}
    for node in nodes:
        for name, inv in node.inventories.items():
            entry = totals.setdefault(name, {"capacity": 0, "used": 0})
            entry["capacity"] += inv.get("capacity", 0)
            entry["used"] += inv.get("used", 0)
    return dict(sorted(totals.items()))


# Marker colours of the sharing pools (console.css .pool-c0 ... .pool-c5).
POOL_COLOURS = 6


def _link_pools(trees: list[Tree], everything: list[list]) -> None:
    """Fill each shown tree's pools (its sharing providers and the trees
    they serve, as ``provider_forest`` found them through the aggregates)
    and served_by (the pools serving it, wherever they are)."""
    shown = {t.root.uuid for t in trees}
    names = {nodes[0].uuid: nodes[0].name for nodes in everything}
    by_root = {t.root.uuid: t for t in trees}

    def link(root_uuid):
        return TreeLink(root_uuid, names[root_uuid], root_uuid in shown)

    colour = 0
    for nodes in everything:
        for node in nodes:
            if not node.shares_with:
                continue
            pool = Pool(node, colour % POOL_COLOURS,
                        sorted((link(u) for u in node.shares_with), key=lambda t: t.name))
            colour += 1
            if node.root_uuid in by_root:
                by_root[node.root_uuid].pools.append(pool)
            for served in node.shares_with:
                if served in by_root:
                    by_root[served].served_by.append((pool, link(node.root_uuid)))


def forest(query: str = "", limit: int | None = FOREST_TREES) -> tuple[list[Tree], int]:
    """The trees whose providers' name or uuid contain ``query`` (all when
    empty), at most ``limit`` of them (None: all), and how many matched."""
    everything, current = [], None
    for node in provider_forest():
        if node.depth == 0:
            current = [node]
            everything.append(current)
        else:
            current.append(node)
    needle = query.strip().lower()
    trees = everything
    if needle:
        trees = [t for t in trees
                 if any(needle in n.name.lower() or needle in n.uuid for n in t)]
    shown = [
        Tree(root=t[0], nodes=t, totals=_totals(t), consumers=t[0].tree_consumers)
        for t in trees[:limit]
    ]
    _link_pools(shown, everything)
    return shown, len(trees)


def trees_served(provider: ResourceProvider, traits, aggregate_ids) -> list[ResourceProvider]:
    """For a sharing provider (``traits`` holds the sharing trait): the roots
    of the trees in its aggregates, 1 query."""
    if SHARING_TRAIT not in traits or not aggregate_ids:
        return []
    members = ResourceProvider.objects.filter(
        provideraggregate__aggregate_id__in=list(aggregate_ids)).values("root_id")
    return list(ResourceProvider.objects.filter(pk__in=members)
                .exclude(pk=provider.pk).order_by("name")[:200])


def project_totals(limit: int | None = 50) -> list[dict]:
    """Per project: its consumers holding allocations (as GET /usages counts
    them: an empty consumer holds nothing) and the amounts it holds per
    class, the projects holding the most allocations first, at most
    ``limit`` of them (None: all) (2 queries)."""
    consumers = dict(Allocation.objects.values("consumer__project__external_id")
                     .annotate(n=Count("consumer_id", distinct=True)).order_by()
                     .values_list("consumer__project__external_id", "n"))
    totals = defaultdict(dict)
    for project, rc, amount in (Allocation.objects
                                .values("consumer__project__external_id", "resource_class__name")
                                .annotate(a=Sum("used")).order_by()
                                .values_list("consumer__project__external_id",
                                             "resource_class__name", "a")):
        totals[project][rc] = int(amount)
    rows = [{"project": p, "consumers": consumers.get(p, 0), "used": dict(sorted(r.items()))}
            for p, r in totals.items()]
    rows.sort(key=lambda r: (-sum(r["used"].values()), r["project"]))
    return rows[:limit]


DISABLED_TRAIT = provider_selectors.DISABLED_TRAIT
disabled_among = provider_selectors.disabled_among


def disabled_hosts() -> int:
    """How many trees are disabled (their root carries DISABLED_TRAIT), 1 query."""
    return ResourceProvider.objects.filter(
        parent__isnull=True, pk__in=provider_selectors.disabled_roots()).count()


# -- The pages' simpler reads, each one or two statements ---------------------


def headroom_table():
    """(flavors, {flavor name: counts}): what the overview's headroom shows."""
    flavors = flavor_list()
    return flavors, headroom(flavors)


def stored_flavors() -> list:
    return list(Flavor.objects.order_by("name"))


def stored_flavor(pk: int):
    return Flavor.objects.filter(pk=pk).first()


def provider_filter(params):
    """The API's FilterSet over every provider by name, at the newest
    microversion, blanks ignored and errors kept for the page to show."""
    return ResourceProviderFilterSet(
        params, queryset=ResourceProvider.objects.order_by("name"), lenient=True)


def provider(uuid: str):
    return ResourceProvider.objects.filter(uuid=uuid).first()


def provider_aggregates(rp) -> list:
    return list(rp.aggregates.order_by("uuid"))


def provider_trait_names(rp) -> list:
    return list(rp.traits.order_by("name").values_list("name", flat=True))


def tree_aggregate_ids(provider_ids) -> list:
    return list(ProviderAggregate.objects.filter(
        resource_provider_id__in=list(provider_ids)).values_list("aggregate_id", flat=True))


def consumers(q: str, consumer_type: str):
    """Consumers by uuid, with their allocation counts: those whose uuid
    holds ``q`` or whose project or user is ``q``, of ``consumer_type``
    (``unknown``: none set)."""
    qs = Consumer.objects.select_related("project", "user", "consumer_type").annotate(
        n_allocations=Count("allocations")).order_by("uuid")
    if q:
        found = Q(project__external_id=q) | Q(user__external_id=q)
        # A text longer than a uuid is not in one (and SQLite refuses a LIKE
        # pattern of 50,000 bytes).
        if len(q) <= Consumer._meta.get_field("uuid").max_length:
            found |= Q(uuid__contains=q.lower())
        qs = qs.filter(found)
    if consumer_type == "unknown":
        qs = qs.filter(consumer_type__isnull=True)
    elif consumer_type:
        qs = qs.filter(consumer_type__name=consumer_type)
    return qs


def consumer_type_names() -> list:
    return list(ConsumerType.objects.order_by("name").values_list("name", flat=True))


def consumer(uuid: str):
    return Consumer.objects.select_related("project", "user", "consumer_type").filter(
        uuid=uuid).first()


def change_rows(columns, **which):
    """Every recorded change of a consumer or provider, oldest first, as
    rows of ``columns`` (streamed: the CSV)."""
    return history.changes_for(**which).values_list(*columns).iterator(chunk_size=2000)


def latest_changes(count: int, **which) -> list:
    """The latest ``count`` allocation changes of a consumer or provider, newest first."""
    return list(history.changes_for(**which).order_by("-created_at", "-id")[:count])


def explanation(text: str, *, show: int):
    """Why the candidates query ``text`` finds what it finds; BadRequest for a bad query."""
    return explain.explain(parse_query(text), show=show)


def usage_series(aggregate_uuid: str, since) -> dict:
    return snapshots.series(aggregate_uuid=aggregate_uuid, since=since)


def snapshot_aggregates() -> list:
    return list(UsageSnapshot.objects.exclude(aggregate_uuid="").values_list(
        "aggregate_uuid", flat=True).distinct().order_by("aggregate_uuid"))


def flavors():
    """Every flavor headroom counts (the setting's, then the stored ones)."""
    return flavor_list()


def full_providers(fraction: float, resource_class: str = ""):
    """The providers :func:`full_at_least` keeps, fullest first, roots joined."""
    return sort_by_fullness(full_at_least(
        with_fullness(ResourceProvider.objects.select_related("root"), resource_class),
        fraction, resource_class))


def full_rows(providers, over, batch=500):
    """(provider, its root when nested, its classes ``over`` keeps, disabled)
    for each provider of the query ``providers`` (read ``batch`` at a time)
    or of the list ``providers`` (``batch`` None), 2 queries a batch."""
    chunks = [list(providers)] if batch is None else (
        list(providers[start:start + batch]) for start in itertools.count(0, batch))
    for chunk in chunks:
        if not chunk:
            return
        caps = capacities(rp.pk for rp in chunk)
        disabled = disabled_among(rp.pk for rp in chunk)
        for rp in chunk:
            root = rp.root if rp.root_id not in (None, rp.pk) else None
            yield rp, root, over(caps.get(rp.pk, [])), rp.pk in disabled


# --- names for uuids ---------------------------------------------------------------


def provider_names(uuids) -> dict[str, str]:
    """uuid -> name of the providers that still exist (1 query, none for no uuids)."""
    uuids = set(uuids)
    if not uuids:
        return {}
    return dict(ResourceProvider.objects.filter(uuid__in=set(uuids)).values_list("uuid", "name"))


def consumer_types(uuids) -> dict[str, str]:
    """uuid -> consumer type ("" when unknown) of the consumers that still
    exist (1 query, none for no uuids)."""
    uuids = set(uuids)
    if not uuids:
        return {}
    return {u: t or "" for u, t in Consumer.objects.filter(uuid__in=set(uuids))
            .values_list("uuid", "consumer_type__name")}


# --- consumers ---------------------------------------------------------------------


def consumer_holdings(consumer_uuids) -> dict[str, dict]:
    """Per consumer uuid: the hosts it holds allocations on ("hosts": the roots
    of those trees, (uuid, name) by name), the sharing pools it draws on
    ("pools": not hosts, whatever tree they make), and its amounts summed
    per class over every provider (1 query)."""
    shares = ProviderTrait.objects.filter(resource_provider_id=OuterRef("resource_provider_id"),
                                          trait__name=SHARING_TRAIT)
    out = {}
    for consumer, root_uuid, root_name, rp_uuid, rp_name, rc, used, pool in (
        Allocation.objects.filter(consumer_id__in=list(consumer_uuids))
        .annotate(pool=Exists(shares))
        .values_list("consumer_id", "resource_provider__root__uuid",
                     "resource_provider__root__name", "resource_provider__uuid",
                     "resource_provider__name", "resource_class__name", "used", "pool")
    ):
        entry = out.setdefault(consumer, {"hosts": {}, "pools": {}, "resources": {}})
        if pool:
            entry["pools"][rp_uuid] = rp_name
        else:
            # A provider whose root is gone (never in a sound database) stands for itself.
            entry["hosts"][root_uuid or rp_uuid] = root_name or rp_name
        entry["resources"][rc] = entry["resources"].get(rc, 0) + used
    return {c: {"hosts": sorted(e["hosts"].items(), key=lambda kv: kv[1]),
                "pools": sorted(e["pools"].items(), key=lambda kv: kv[1]),
                "resources": dict(sorted(e["resources"].items()))} for c, e in out.items()}



# -- Capacity planning (the planning app) ------------------------------------------


def drain_what_if(query):
    """planning.drain over a query string's arguments; raises
    errors.BadRequest with the words GET /planning/drain would use."""
    return drain.drain(**drain.arguments(query))


def drain_choices() -> dict:
    """What the drain page offers to pick: the roots of trees (hosts) and
    the aggregates, by name and uuid (two statements)."""
    hosts = list(ResourceProvider.objects.filter(parent__isnull=True).order_by("name")
                 .values_list("uuid", "name"))
    aggregates = list(Aggregate.objects.filter(resource_providers__isnull=False).distinct()
                      .order_by("uuid").values_list("uuid", flat=True))
    return {"hosts": hosts, "aggregates": aggregates}


def usage_forecast(aggregate: str) -> dict:
    """The forecast rows of one scope ("" for the whole cloud) and the
    stranded capacity (planning.forecast; six statements)."""
    return forecast.report(aggregate=aggregate, show=20)


FAILURE_KINDS, FAILURE_REASONS = failures.KINDS, failures.REASONS


def scheduling_failures(query):
    """planning.failures.report over a query string's arguments, the form's
    blank fields left out; raises errors.BadRequest with the words
    GET /planning/failures would use."""
    given = query.copy()
    for key in list(given.keys()):
        if not any(value.strip() for value in given.getlist(key)):
            del given[key]
    return failures.report(**failures.arguments(given))


def scheduling_failure(pk: int):
    """One record as a dict, or None."""
    record = SchedulingFailure.objects.filter(pk=pk).first()
    return failures.record_dict(record) if record else None


def failure_reasons(record: dict) -> list:
    """The per-class failures a record's explanation states, for showing
    their amounts in units wherever its sentences appear (no statement)."""
    return failures.reasons_of(record)


def claim_reason(refusal: dict) -> dict:
    """A refused claim's failure, as the explanations state theirs (no statement)."""
    return failures.claim_reason(refusal)
