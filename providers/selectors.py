"""Reads of resource providers: one provider, the filtered list, aggregates, traits.

The list: one ``filter_*`` function per rule (the query is parsed by
``placement_core.querystring``), which ``providers.filters.ResourceProviderFilterSet``
(the API list and the console list) and ``providers_list`` are built from.
The filtered list is one SQL statement; every filter is a
``pk IN (subquery)`` or ``NOT IN`` against the link tables, and parent and
root uuids come from two self-joins, so the whole page costs one query
(plus the look-ups of named traits and resource classes).
"""
from dataclasses import dataclass

from django.db.models import (
    F,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce, Lower, Mod

from placement_core import errors
from placement_core.replica import read_rows
from placement_core.uuids import normalize_uuid
from placement_core.querystring import MemberOf, RequiredTraits
from providers.models import (
    Inventory,
    ProviderAggregate,
    ProviderTrait,
    ResourceProvider,
    capacity_expression,
)
from resource_classes.models import ResourceClass, Trait

# Columns a provider row is rendered from.
PROVIDER_COLUMNS = ("id", "uuid", "name", "generation", "parent__uuid", "root__uuid", "updated_at")


def provider_get(*, uuid, exact=False):
    """The ResourceProvider stored under ``uuid``; 404 naming ``uuid`` as given.

    Providers are stored under the canonical uuid, so any spelling (upper
    case, no dashes) finds one, and anything that is not a uuid (a NUL byte
    included, which PostgreSQL text cannot hold) is a 404.  ``exact=True``
    matches the stored spelling only: the inventory endpoints, whose writes
    (``locking.lock_provider_by_uuid``) have always looked up the path's
    uuid as written.  Writers lock through ``providers.locking`` instead.
    """
    canonical = normalize_uuid(uuid)
    # Even the as-written look-up sends nothing that is not a uuid to the
    # database (a NUL byte would be a database error, not a 404).
    key = uuid if exact and canonical is not None else canonical
    provider = None
    if key is not None:
        provider = ResourceProvider.objects.filter(uuid=key).first()
    if provider is None:
        raise errors.NotFound(f"No resource provider with uuid {uuid} found")
    return provider


def provider_row(*, uuid):
    """:func:`provider_get`'s look-up as a dict of PROVIDER_COLUMNS (parent and
    root uuids joined in, one query): what ``GET /resource_providers/{uuid}``
    renders."""
    canonical = normalize_uuid(uuid)
    row = None
    if canonical is not None:
        row = ResourceProvider.objects.filter(uuid=canonical).values(*PROVIDER_COLUMNS).first()
    if row is None:
        raise errors.NotFound(f"No resource provider with uuid {uuid} found")
    return row


def provider_aggregate_uuids(provider_id):
    return list(
        ProviderAggregate.objects.filter(resource_provider_id=provider_id)
        .order_by("aggregate_id")
        .values_list("aggregate__uuid", flat=True)
    )


def provider_trait_names(provider_id):
    return sorted(
        ProviderTrait.objects.filter(resource_provider_id=provider_id).values_list(
            "trait__name", flat=True
        )
    )


# -- The list ---------------------------------------------------------------


@dataclass
class ProviderFilters:
    name: str = None
    uuid: str = None
    in_tree: str = None
    member_of: MemberOf = None
    resources: dict = None
    required: RequiredTraits = None


def _trait_ids(names):
    """{name: id} for ``names``; 400 naming the ones that do not exist."""
    found = dict(Trait.objects.filter(name__in=names).values_list("name", "id"))
    missing = sorted(set(names) - set(found))
    if missing:
        raise errors.BadRequest(f"No such trait(s): {', '.join(missing)}.")
    return found


def _resource_class_ids(names):
    found = dict(ResourceClass.objects.filter(name__in=names).values_list("name", "id"))
    missing = sorted(set(names) - set(found))
    if missing:
        raise errors.BadRequest(
            f"Invalid resource class in resources parameter: No such resource class "
            f"{missing[0]}."
        )
    return found


def _with_capacity(rc_id, amount):
    """Provider ids with inventory of class ``rc_id`` able to take ``amount`` more
    (``Inventory.fits``, in SQL)."""
    # Allocations through the provider's reverse relation: allocations sit
    # above providers in the app order.
    allocations = ResourceProvider._meta.get_field("allocations").related_model
    used = (
        allocations.objects.filter(
            resource_provider_id=OuterRef("resource_provider_id"), resource_class_id=rc_id
        )
        .order_by()
        .values("resource_provider_id")
        .annotate(total_used=Sum("used"))
        .values("total_used")
    )
    return (
        Inventory.objects.filter(
            resource_class_id=rc_id, min_unit__lte=amount, max_unit__gte=amount
        )
        .annotate(
            used_now=Coalesce(Subquery(used, output_field=IntegerField()), Value(0)),
            capacity_now=capacity_expression(),
            step_rest=Mod(Value(amount), F("step_size"), output_field=IntegerField()),
        )
        .filter(step_rest=0, capacity_now__gte=F("used_now") + Value(amount))
        .values("resource_provider_id")
    )


def aggregate_spellings(canonical_uuids):
    """The ways a stored aggregate uuid may be written: dashed or not, either case."""
    forms = set()
    for value in canonical_uuids:
        for form in (value, value.replace("-", "")):
            forms.update((form, form.upper()))
    return forms


# One function per filter rule, each narrowing a ResourceProvider queryset.
# ``providers.filters.ResourceProviderFilterSet`` (API list and console list)
# and ``providers_list`` are both built from these.


def filter_name(qs, name):
    return qs.filter(name=name)


def filter_uuid(qs, uuid):
    return qs.filter(uuid=normalize_uuid(uuid) or uuid)


def filter_in_tree(qs, uuid):
    """Providers sharing a root with the provider ``uuid`` (none if it is unknown)."""
    tree_root = ResourceProvider.objects.filter(uuid=normalize_uuid(uuid) or uuid).values("root_id")
    return qs.filter(root_id__in=Subquery(tree_root))


def filter_member_of(qs, member_of: MemberOf):
    """In an aggregate of every ``any_of`` set, and in none of ``forbidden``."""
    for group in member_of.any_of:
        qs = qs.filter(
            pk__in=ProviderAggregate.objects.filter(aggregate__uuid__in=aggregate_spellings(group)).values(
                "resource_provider_id"
            )
        )
    if member_of.forbidden:
        qs = qs.exclude(
            pk__in=ProviderAggregate.objects.filter(
                aggregate__uuid__in=aggregate_spellings(member_of.forbidden)
            ).values("resource_provider_id")
        )
    return qs


def filter_required(qs, required: RequiredTraits):
    """Having a trait of every ``any_of`` set and none of ``forbidden`` (400: unknown trait)."""
    if not required.names():
        return qs
    ids = _trait_ids(required.names())
    for group in required.any_of:
        qs = qs.filter(
            pk__in=ProviderTrait.objects.filter(
                trait_id__in=[ids[name] for name in group]
            ).values("resource_provider_id")
        )
    if required.forbidden:
        qs = qs.exclude(
            pk__in=ProviderTrait.objects.filter(
                trait_id__in=[ids[name] for name in required.forbidden]
            ).values("resource_provider_id")
        )
    return qs


def nothing_can_match(applied: dict) -> bool:
    """Whether one of the list filters ``applied`` (name -> parsed value)
    matches no provider at all, as upstream judges it before looking up
    the names of the filters after it: the ``in_tree`` provider does not
    exist, or no provider has the required traits, or none is in every
    ``member_of`` set. Read only on the way to a 400."""
    everyone = ResourceProvider.objects.all()
    if "in_tree" in applied and not everyone.filter(
            uuid=normalize_uuid(applied["in_tree"]) or applied["in_tree"]).exists():
        return True
    required = applied.get("required")
    if required is not None and required.any_of and not filter_required(
            everyone, RequiredTraits(any_of=required.any_of)).exists():
        return True
    member_of = applied.get("member_of")
    return bool(member_of is not None and member_of.any_of and not filter_member_of(
        everyone, MemberOf(any_of=member_of.any_of)).exists())


def filter_resources(qs, resources: dict):
    """Able to take each amount of ``resources`` (400: unknown resource class)."""
    if not resources:
        return qs
    rc_ids = _resource_class_ids(list(resources))
    for name, amount in resources.items():
        qs = qs.filter(pk__in=_with_capacity(rc_ids[name], amount))
    return qs


def filter_search(qs, text):
    """The console's free-text search: name or uuid contains ``text``."""
    text = text.strip()
    if not text:
        return qs
    # Lower() on both sides rather than icontains: MariaDB/MySQL columns
    # compare byte for byte (utf8mb4_bin), where icontains would not ignore case.
    text = text.lower()
    if len(text) > ResourceProvider._meta.get_field("name").max_length:
        # Longer than any name or uuid: nothing holds it (and SQLite refuses
        # a LIKE pattern of 50,000 bytes).
        return qs.none()
    return qs.alias(_name=Lower("name")).filter(Q(_name__contains=text) | Q(uuid__contains=text))


def providers_filter(qs, filters: ProviderFilters):
    """``qs`` narrowed by every filter that is set, in the API's order."""
    if filters.name is not None:
        qs = filter_name(qs, filters.name)
    if filters.uuid is not None:
        qs = filter_uuid(qs, filters.uuid)
    if filters.in_tree is not None:
        qs = filter_in_tree(qs, filters.in_tree)
    if filters.member_of is not None:
        qs = filter_member_of(qs, filters.member_of)
    if filters.required is not None:
        qs = filter_required(qs, filters.required)
    if filters.resources:
        qs = filter_resources(qs, filters.resources)
    return qs


def providers_list(filters: ProviderFilters):
    """Provider rows (dicts of PROVIDER_COLUMNS) matching every filter, by id."""
    return provider_rows(providers_filter(ResourceProvider.objects.all(), filters))


def provider_rows(qs):
    """The rows (dicts of PROVIDER_COLUMNS) of a provider queryset, by id: one query."""
    return list(qs.order_by("id").values(*PROVIDER_COLUMNS))


# Columns of the API list's rows (provider_list_rows), in tuple order.
PROVIDER_LIST_COLUMNS = ("id", "uuid", "name", "generation", "parent_id", "root_id")


def _every_list_row():
    """PROVIDER_LIST_COLUMNS of every provider, by id, written out: the ORM
    spent more than the read itself turning 1,000 rows into tuples (0.7 ms
    against 0.3). Sorted as ``provider_list_rows`` sorts."""
    return sorted(read_rows("SELECT id, uuid, name, generation, parent_provider_id, "
                            "root_provider_id FROM resource_providers"))


def provider_list_rows(qs=None):
    """The API list of a provider queryset (None: every provider), by id:
    ``(rows, uuid_of)``, the rows tuples of PROVIDER_LIST_COLUMNS (no dicts
    or timestamps to build) and ``uuid_of`` the uuid of every provider
    they are or name as parent or root, by id.

    The parent and root uuids are found among the rows themselves when they
    are all there (the whole list, a tree): one read without the two
    self-joins, which cost PostgreSQL more than the read itself (2.3 ms
    against 0.6 for 1,000 providers). A filtered list whose parents or roots
    lie outside it is read again with the joins, so both reads see one
    snapshot each and never mix. The renderer looks the uuids up itself,
    so no second list of rows is built."""
    if qs is None:
        rows = _every_list_row()
        # Every provider a row names is a row itself: the foreign keys hold
        # in the one snapshot the read sees.
        return rows, {pk: uuid for pk, uuid, *_ in rows}
    # Sorted here, not by the database: PostgreSQL read 1,000 providers in
    # id order by the primary-key index in 0.9 ms, in table order in 0.55
    # ms, and they come nearly in id order, which Python sorts in one pass.
    qs = qs.order_by()
    rows = sorted(qs.values_list(*PROVIDER_LIST_COLUMNS))
    uuid_of = {pk: uuid for pk, uuid, *_ in rows}
    # A root has no parent, and a row without a root (as an old database
    # may hold) shows it as null: neither needs a uuid.
    referenced = {parent for *_, parent, _ in rows}
    referenced.update(root for *_, root in rows)
    referenced.discard(None)
    if referenced <= uuid_of.keys():
        return rows, uuid_of
    joined = sorted(qs.values_list(*PROVIDER_LIST_COLUMNS, "parent__uuid", "root__uuid"))
    rows = [row[:6] for row in joined]
    uuid_of = {pk: uuid for pk, uuid, *_ in rows}
    for *_, parent, root, parent_uuid, root_uuid in joined:
        if parent is not None:
            uuid_of[parent] = parent_uuid
        if root is not None:
            uuid_of[root] = root_uuid
    return rows, uuid_of


__all__ = [
    "ProviderFilters",
    "normalize_uuid",
    "provider_aggregate_uuids",
    "provider_get",
    "provider_row",
    "provider_list_rows",
    "provider_rows",
    "provider_trait_names",
    "providers_filter",
    "providers_list",
]


# --- disabled hosts -----------------------------------------------------------

# The one rule for a disabled host, everywhere (headroom, the console,
# provider_tree, explain): Nova puts COMPUTE_STATUS_DISABLED on a disabled
# compute node's root provider and asks for candidates with
# ``root_required=!COMPUTE_STATUS_DISABLED``, so the whole tree is out.
DISABLED_TRAIT = "COMPUTE_STATUS_DISABLED"


def disabled_among(provider_ids) -> set[int]:
    """Which of the providers are in a disabled tree (their root carries
    :data:`DISABLED_TRAIT`), 1 query."""
    return set(ResourceProvider.objects.filter(
        pk__in=list(provider_ids), root__providertrait__trait__name=DISABLED_TRAIT)
        .values_list("pk", flat=True))


def disabled_roots():
    """A queryset of the roots carrying :data:`DISABLED_TRAIT` (for subqueries)."""
    return ProviderTrait.objects.filter(trait__name=DISABLED_TRAIT).values(
        "resource_provider_id")
