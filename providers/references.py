"""Providers and aggregates as an operator names them, both ways.

In: every maintenance command (and the drain what-if) takes a provider by
uuid (any spelling) or by name, and an aggregate by uuid or by the name of a
provider in it: aggregates have no name of their own, and an operator knows
one by its members ("the aggregate storage-pool is in").  One resolver, so
every command accepts and refuses the same things with the same words.

Out: aggregates by their members' names (sharing providers first: an
aggregate is best known by the pool it shares), for the console's labels and
the commands' tables alike.
"""
from collections import defaultdict

import os_traits
from django.db.models import Exists, OuterRef

from placement_core import errors
from placement_core.uuids import normalize_uuid
from providers.models import ProviderAggregate, ProviderTrait, ResourceProvider

SHARING_TRAIT = os_traits.MISC_SHARES_VIA_AGGREGATE


def provider_by_ref(text: str) -> ResourceProvider:
    """The provider named by ``text``: its uuid (any spelling) or its name
    (names are unique).  ``errors.BadRequest`` naming what was given."""
    text = (text or "").strip()
    if not text or "\x00" in text:
        raise errors.BadRequest(f"No resource provider with uuid or name {text!r}.")
    canonical = normalize_uuid(text)
    found = None
    if canonical is not None:
        found = ResourceProvider.objects.filter(uuid=canonical).first()
    if found is None:
        found = ResourceProvider.objects.filter(name=text).first()
    if found is None:
        raise errors.BadRequest(f"No resource provider with uuid or name {text!r}.")
    return found


def aggregate_by_ref(text: str) -> str:
    """The aggregate uuid ``text`` names: a uuid as it is, without a query
    (an aggregate exists only through its members, so an unknown one is
    simply empty), or the name of a provider that is in exactly one
    aggregate."""
    text = (text or "").strip()
    canonical = normalize_uuid(text)
    if canonical is not None:
        return canonical
    try:
        provider = provider_by_ref(text)
    except errors.BadRequest:
        raise errors.BadRequest(
            f"No aggregate {text!r}: give an aggregate uuid or the name of a provider in "
            "one.") from None
    uuids = sorted(ProviderAggregate.objects.filter(resource_provider=provider)
                   .values_list("aggregate__uuid", flat=True))
    if len(uuids) != 1:
        where = "in no aggregate" if not uuids else \
            f"in {len(uuids)} aggregates ({', '.join(uuids)}): give one's uuid"
        raise errors.BadRequest(f"Provider {provider.name!r} is {where}.")
    return uuids[0]


def aggregate_members(aggregate_uuids) -> dict[str, list[str]]:
    """aggregate uuid -> its members' names, sharing providers first, then
    by name (1 query, none for no aggregates)."""
    aggregate_uuids = set(aggregate_uuids)
    if not aggregate_uuids:
        return {}
    shares = ProviderTrait.objects.filter(resource_provider_id=OuterRef("resource_provider_id"),
                                          trait__name=SHARING_TRAIT)
    rows = (ProviderAggregate.objects.filter(aggregate__uuid__in=aggregate_uuids)
            .annotate(shares=Exists(shares))
            .order_by("aggregate__uuid", "-shares", "resource_provider__name")
            .values_list("aggregate__uuid", "resource_provider__name"))
    out = defaultdict(list)
    for aggregate, name in rows:
        out[aggregate].append(name)
    return dict(out)


def aggregate_name(aggregate_uuid: str, members: dict, *, shown=2) -> str:
    """An aggregate as text: its first members' names and how many more
    ("storage-pool, compute-01 +2"); its uuid only when it has no member."""
    names = members.get(aggregate_uuid) or []
    if not names:
        return aggregate_uuid
    return ", ".join(names[:shown]) + (f" +{len(names) - shown}" if len(names) > shown else "")


def provider_names(uuids) -> dict[str, str]:
    """uuid -> name of the providers that still exist (1 query)."""
    uuids = set(uuids)
    if not uuids:
        return {}
    return dict(ResourceProvider.objects.filter(uuid__in=uuids).values_list("uuid", "name"))
