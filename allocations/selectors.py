"""Reads of allocations and usages.

- :func:`consumer_allocations`: ``GET /allocations/{consumer_uuid}``.
- :func:`provider_allocations`: ``GET /resource_providers/{uuid}/allocations``.
- :func:`provider_usages`: ``GET /resource_providers/{uuid}/usages``.
- :func:`usages_by_project`: ``GET /usages`` (flat, or grouped by consumer type).
- :func:`provider_forest`: every provider tree with inventory, usage and
  consumer counts (``manage.py provider_tree``); it lives here, not in
  ``providers``, because usage is allocations' to read.
- :func:`consumers_incomplete` / :func:`consumers_empty`: what the
  maintenance commands look for (and ``consumer_services.consumers_heal`` /
  ``consumers_delete_empty`` fix).

Every query here is a plain GROUP BY that PostgreSQL and SQLite both accept:
no selected or ordered column outside the grouping (hence the ``order_by()``
that drops the models' default ordering before each aggregate), one or two
queries per call.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone

import os_traits
from django.conf import settings
from django.db.models import Count, F, Q, Sum, Value
from django.db.models.functions import Coalesce

from allocations.models import Allocation, Consumer
from placement_core import errors
from placement_core.replica import read_rows
from placement_core.shared_schema import as_utc
from placement_core.uuids import normalize_uuid
from providers.models import (
    Inventory,
    ProviderAggregate,
    ProviderTrait,
    ResourceProvider,
    capacity_of,
)
# Providers are stored under their canonical uuid; anything that is not a uuid
# (a NUL byte included, which PostgreSQL text cannot hold) is a 404.
from providers.selectors import DISABLED_TRAIT, provider_get

#: How a consumer without a type is reported (1.38+), and the filter value for it.
UNKNOWN_CONSUMER_TYPE = "unknown"
#: The ``consumer_type`` filter value that sums every type into one group.
ALL_CONSUMER_TYPES = "all"


def _now():
    return datetime.now(timezone.utc)


@dataclass
class ConsumerView:
    """A consumer's allocations, as ``GET /allocations/{uuid}`` shows them;
    ``exists`` is False for a consumer that holds none (the rest unset)."""

    exists: bool
    # provider uuid -> {"generation": int, "resources": {class: used}}
    allocations: dict
    last_modified: datetime
    project_id: str | None = None
    user_id: str | None = None
    generation: int | None = None
    consumer_type: str = UNKNOWN_CONSUMER_TYPE


# The consumer's owners come from scalar subqueries rather than joins: with
# every table joined, PostgreSQL spent 0.65 ms planning a read it runs in 0.05.
_CONSUMER_ALLOCATIONS = """
SELECT rp.uuid, rp.generation, rc.name, a.used, a.created_at, a.updated_at, c.generation,
       (SELECT p.external_id FROM projects p WHERE p.id = c.project_id),
       (SELECT u.external_id FROM users u WHERE u.id = c.user_id),
       (SELECT t.name FROM consumer_types t WHERE t.id = c.consumer_type_id)
FROM allocations a
JOIN consumers c ON c.uuid = a.consumer_id
JOIN resource_providers rp ON rp.id = a.resource_provider_id
JOIN resource_classes rc ON rc.id = a.resource_class_id
WHERE a.consumer_id = %s
ORDER BY a.resource_provider_id, a.resource_class_id
"""


def consumer_allocations(*, consumer_uuid: str) -> ConsumerView:
    """One statement (:data:`_CONSUMER_ALLOCATIONS`)."""
    if "\x00" in consumer_uuid:
        return ConsumerView(exists=False, allocations={}, last_modified=_now())
    rows = read_rows(_CONSUMER_ALLOCATIONS, [consumer_uuid])
    # A consumer whose project or user row is gone (the shared tables hold
    # no foreign keys) holds nothing, as a join on them would find.
    if not rows or rows[0][7] is None or rows[0][8] is None:
        return ConsumerView(exists=False, allocations={}, last_modified=_now())
    allocations = {}
    for rp_uuid, rp_generation, class_name, used, *_ in rows:
        entry = allocations.setdefault(rp_uuid, {"generation": rp_generation, "resources": {}})
        entry["resources"][class_name] = used
    last_modified = max(as_utc(updated_at or created_at)
                        for _, _, _, _, created_at, updated_at, *_ in rows)
    *_, generation, project_id, user_id, consumer_type = rows[0]
    return ConsumerView(exists=True, allocations=allocations, last_modified=last_modified,
                        project_id=project_id, user_id=user_id, generation=generation,
                        consumer_type=UNKNOWN_CONSUMER_TYPE if consumer_type is None else consumer_type)


# The provider left-joined to its allocations: a provider without any is one
# row of nulls, no provider is no row (a 404), in one round trip.
_PROVIDER_ALLOCATIONS = """
SELECT rp.generation, a.consumer_id, rc.name, a.used, a.updated_at, c.generation
FROM resource_providers rp
LEFT JOIN (allocations a
           JOIN consumers c ON c.uuid = a.consumer_id
           JOIN resource_classes rc ON rc.id = a.resource_class_id)
       ON a.resource_provider_id = rp.id
WHERE rp.uuid = %s
ORDER BY a.consumer_id, a.resource_class_id
"""


def provider_allocations(*, provider_uuid: str, with_generations: bool = False):
    """(provider generation, {consumer uuid: {"resources": {class: used}}},
    last_modified), in one statement (:data:`_PROVIDER_ALLOCATIONS`); 404
    as ``providers.selectors.provider_get``'s.

    ``with_generations`` (1.28+) adds each consumer's ``consumer_generation``.
    """
    canonical = normalize_uuid(provider_uuid)
    rows = read_rows(_PROVIDER_ALLOCATIONS, [canonical]) if canonical is not None else []
    if not rows:
        raise errors.NotFound(f"No resource provider with uuid {provider_uuid} found")
    allocations = {}
    last_modified = None
    for _, consumer_uuid, class_name, used, updated_at, generation in rows:
        if consumer_uuid is None:
            break  # the provider holds no allocations
        entry = allocations.setdefault(consumer_uuid, {"resources": {}})
        entry["resources"][class_name] = used
        if with_generations:
            entry["consumer_generation"] = generation
        if updated_at and (last_modified is None or updated_at > last_modified):
            last_modified = updated_at
    return rows[0][0], allocations, as_utc(last_modified) or _now()


def provider_usages(*, provider_uuid: str):
    """(provider, {class: used}): every class the provider has inventory of,
    0 if unused, and only those (as upstream: an allocation of a class
    without inventory, which only an import can leave, is not listed)."""
    provider = provider_get(uuid=provider_uuid)
    usages = {
        name: 0
        for name in Inventory.objects.filter(resource_provider_id=provider.pk).values_list(
            "resource_class__name", flat=True
        )
    }
    for name, total in (
        Allocation.objects.filter(resource_provider_id=provider.pk,
                                  resource_class__name__in=list(usages))
        .order_by()
        .values("resource_class__name")
        .annotate(total=Sum("used"))
        .values_list("resource_class__name", "total")
    ):
        usages[name] = total
    return provider, usages


def usages_by_project(
    *,
    project_id: str,
    user_id: str | None = None,
    consumer_type: str | None = None,
    by_consumer_type: bool = False,
) -> dict:
    """Sum of allocations of a project's (and optionally a user's) consumers.

    Flat (``{class: used}``, before 1.38), or grouped by consumer type
    (``{type: {"consumer_count": n, class: used}}``, 1.38+). ``consumer_type``
    narrows the consumers: a type name, ``unknown`` (no type), or ``all``
    (every consumer, reported as one ``all`` group).
    """
    allocations = Allocation.objects.filter(consumer__project__external_id=project_id)
    consumers = Consumer.objects.filter(project__external_id=project_id)
    if user_id is not None:
        allocations = allocations.filter(consumer__user__external_id=user_id)
        consumers = consumers.filter(user__external_id=user_id)

    if not by_consumer_type:
        return dict(
            allocations.order_by()
            .values("resource_class__name")
            .annotate(total=Sum("used"))
            .values_list("resource_class__name", "total")
        )

    if consumer_type == UNKNOWN_CONSUMER_TYPE:
        allocations = allocations.filter(consumer__consumer_type__isnull=True)
        consumers = consumers.filter(consumer_type__isnull=True)
    elif consumer_type not in (None, ALL_CONSUMER_TYPES):
        allocations = allocations.filter(consumer__consumer_type__name=consumer_type)
        consumers = consumers.filter(consumer_type__name=consumer_type)

    if consumer_type == ALL_CONSUMER_TYPES:
        group_alloc = Value(ALL_CONSUMER_TYPES)
        group_consumer = Value(ALL_CONSUMER_TYPES)
    else:
        group_alloc = Coalesce(F("consumer__consumer_type__name"), Value(UNKNOWN_CONSUMER_TYPE))
        group_consumer = Coalesce(F("consumer_type__name"), Value(UNKNOWN_CONSUMER_TYPE))

    result = defaultdict(dict)
    # SELECT COALESCE(ct.name, 'unknown') AS grp, rc.name, SUM(a.used)
    #   FROM allocations a JOIN consumers c ... LEFT JOIN consumer_types ct ...
    #  WHERE project = %s [AND user = %s] [AND type filter]
    #  GROUP BY grp, rc.name
    for group, class_name, total in (
        allocations.order_by()
        .annotate(grp=group_alloc)
        .values("grp", "resource_class__name")
        .annotate(total=Sum("used"))
        .values_list("grp", "resource_class__name", "total")
    ):
        result[group][class_name] = total
    # Consumers holding allocations, counted per group (a consumer always holds
    # some: those left with none are deleted).
    for group, count in (
        consumers.filter(allocations__isnull=False)
        .order_by()
        .annotate(grp=group_consumer)
        .values("grp")
        .annotate(n=Count("id", distinct=True))
        .values_list("grp", "n")
    ):
        if group in result:
            result[group]["consumer_count"] = count
    return dict(result)


def consumers_incomplete():
    """Consumers that still carry the incomplete project or user id (written before 1.8)."""
    return Consumer.objects.filter(
        Q(project__external_id=settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID)
        | Q(user__external_id=settings.PLACEMENT_INCOMPLETE_CONSUMER_USER_ID)
    )


def consumers_empty():
    """Consumers that hold no allocations (the API never leaves one; imports can)."""
    return Consumer.objects.annotate(n=Count("allocations")).filter(n=0)


__all__ = [
    "ALL_CONSUMER_TYPES",
    "UNKNOWN_CONSUMER_TYPE",
    "consumer_allocations",
    "consumers_empty",
    "consumers_incomplete",
    "provider_allocations",
    "provider_usages",
    "usages_by_project",
]


@dataclass
class ForestNode:
    """One provider of :func:`provider_forest`, in depth-first order."""

    uuid: str
    name: str
    generation: int
    parent_uuid: str | None
    root_uuid: str
    depth: int
    # class name -> total, reserved, min_unit, max_unit, step_size,
    # allocation_ratio, capacity, used
    inventories: dict = field(default_factory=dict)
    traits: list = field(default_factory=list)
    aggregates: list = field(default_factory=list)
    consumers: int = 0
    # On a root: the distinct consumers of its whole tree (one holding the
    # root, a NUMA cell and a NIC is one consumer, not three).
    tree_consumers: int = 0
    # In a disabled tree: its root carries COMPUTE_STATUS_DISABLED
    # (providers.selectors.DISABLED_TRAIT).
    disabled: bool = False
    # For a sharing provider: the roots of the other trees it serves (a
    # provider of theirs is in one of its aggregates), by uuid.
    shares_with: list = field(default_factory=list)


def provider_forest(*, root_uuid: str | None = None) -> list[ForestNode]:
    """Every provider of every tree (or of the tree holding ``root_uuid``),
    roots by name, children by name under their parent, in seven queries.
    Raises ``errors.NotFound`` for an unknown ``root_uuid``."""
    qs = ResourceProvider.objects.all()
    # A filter on the tree, not an IN list of every provider (SQLite caps
    # the parameters of one statement).
    of_tree = {}
    if root_uuid is not None:
        provider = provider_get(uuid=root_uuid)
        qs = qs.filter(root_id=provider.root_id or provider.pk)
        of_tree = {"resource_provider__root_id": provider.root_id or provider.pk}
    rows = list(qs.values_list("pk", "uuid", "name", "generation", "parent_id", "root_id")
                .order_by("name"))
    uuid_of = {r[0]: r[1] for r in rows}
    nodes = {pk: ForestNode(uuid, name, gen, None, "", 0) for pk, uuid, name, gen, _, _ in rows}
    used = {
        (r["resource_provider_id"], r["resource_class__name"]): int(r["u"])
        for r in Allocation.objects.filter(**of_tree)
        .values("resource_provider_id", "resource_class__name").annotate(u=Sum("used")).order_by()
    }
    # Rows, not model instances: building 3,000 Inventory objects (and their
    # classes, and their timestamps) was half of the console forest's time.
    for pk, name, total, reserved, min_unit, max_unit, step, ratio in (
            Inventory.objects.filter(**of_tree).order_by("resource_class__name").values_list(
                "resource_provider_id", "resource_class__name", "total", "reserved",
                "min_unit", "max_unit", "step_size", "allocation_ratio")):
        nodes[pk].inventories[name] = {
            "total": total, "reserved": reserved, "min_unit": min_unit,
            "max_unit": max_unit, "step_size": step,
            "allocation_ratio": ratio, "capacity": capacity_of(total, reserved, ratio),
            "used": used.pop((pk, name), 0),
        }
    for (pk, name), amount in sorted(used.items()):
        # Allocations left without inventory: shown so that the leak is seen.
        nodes[pk].inventories[name] = {"capacity": 0, "used": amount}
    for pk, n in (Allocation.objects.filter(**of_tree)
                  .values("resource_provider_id").annotate(n=Count("consumer_id", distinct=True))
                  .order_by().values_list("resource_provider_id", "n")):
        nodes[pk].consumers = n
    for pk, n in (Allocation.objects.filter(**of_tree)
                  .values("resource_provider__root_id")
                  .annotate(n=Count("consumer_id", distinct=True))
                  .order_by().values_list("resource_provider__root_id", "n")):
        nodes[pk].tree_consumers = n
    for pk, trait in ProviderTrait.objects.filter(**of_tree).values_list(
            "resource_provider_id", "trait__name").order_by("trait__name"):
        nodes[pk].traits.append(trait)
    for pk, agg in ProviderAggregate.objects.filter(**of_tree).values_list(
            "resource_provider_id", "aggregate__uuid").order_by("aggregate__uuid"):
        nodes[pk].aggregates.append(agg)
    children = defaultdict(list)
    roots = []
    for pk, _, _, _, parent, _ in rows:
        (children[parent] if parent in nodes else roots).append(pk)
    out = []

    def walk(pk, depth, root_pk):
        node = nodes[pk]
        node.depth = depth
        node.root_uuid = uuid_of[root_pk]
        node.disabled = DISABLED_TRAIT in nodes[root_pk].traits
        out.append(node)
        for child in children[pk]:
            nodes[child].parent_uuid = node.uuid
            walk(child, depth + 1, root_pk)

    for pk in roots:
        walk(pk, 0, pk)
    _mark_sharing(out)
    return out


def _mark_sharing(nodes) -> None:
    roots_in = defaultdict(set)  # aggregate uuid -> roots of its members
    for n in nodes:
        for agg in n.aggregates:
            roots_in[agg].add(n.root_uuid)
    for n in nodes:
        if os_traits.MISC_SHARES_VIA_AGGREGATE in n.traits:
            served = set().union(*(roots_in[agg] for agg in n.aggregates))
            n.shares_with = sorted(served - {n.root_uuid})
