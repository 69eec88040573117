"""Reads of resource providers: one provider, the filtered list, aggregates, traits.

The list: the query-string parsers (``parse_*``) and one ``filter_*``
function per rule, which ``providers.filters.ResourceProviderFilterSet``
(the API list and the console list) and ``providers_list`` are built from.
The filtered list is one SQL statement; every filter is a
``pk IN (subquery)`` or ``NOT IN`` against the link tables, and parent and
root uuids come from two self-joins, so the whole page costs one query
(plus the look-ups of named traits and resource classes).
"""
from dataclasses import dataclass, field

from django.db.models import (
    ExpressionWrapper,
    F,
    FloatField,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce, Lower, Mod

from allocations.models import Allocation
from placement_site import errors
from placement_site.uuids import normalize_uuid
from providers.models import Inventory, ProviderAggregate, ProviderTrait, ResourceProvider
from resource_classes.models import ResourceClass, Trait

# Columns a provider row is rendered from.
PROVIDER_COLUMNS = ("id", "uuid", "name", "generation", "parent__uuid", "root__uuid", "updated_at")


def provider_get(*, uuid, lock=False, exact=False):
    """The ResourceProvider stored under ``uuid``; 404 naming ``uuid`` as given.

    Providers are stored under the canonical uuid, so any spelling (upper
    case, no dashes) finds one, and anything that is not a uuid (a NUL byte
    included, which PostgreSQL text cannot hold) is a 404.  ``exact=True``
    matches the stored spelling only: the inventory endpoints, whose writes
    (``locking.lock_provider_by_uuid``) have always looked up the path's
    uuid as written.  ``lock=True`` takes the row with SELECT ... FOR UPDATE;
    call it inside ``transaction.atomic()``.
    """
    key = uuid if exact else normalize_uuid(uuid)
    provider = None
    if key is not None:
        rows = ResourceProvider.objects.filter(uuid=key)
        if lock:
            rows = rows.select_for_update()
        provider = rows.first()
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
        .order_by("id")
        .values_list("aggregate__uuid", flat=True)
    )


def provider_trait_names(provider_id):
    return sorted(
        ProviderTrait.objects.filter(resource_provider_id=provider_id).values_list(
            "trait__name", flat=True
        )
    )


# -- Query-string parsing ---------------------------------------------------


@dataclass
class MemberOf:
    """Aggregate filters: every set in ``any_of`` must meet, none of ``forbidden``."""

    any_of: list = field(default_factory=list)
    forbidden: set = field(default_factory=set)


def _bad_member_of(value):
    return errors.BadRequest(
        "Invalid query string parameters: Expected 'member_of' parameter to contain "
        f"valid UUID(s). Got: {value}"
    )


def parse_member_of(values, mv, *, suffix=""):
    """Parse the ``member_of`` values of a request (a list, repeated keys kept)."""
    result = MemberOf()
    if not values:
        return result
    if mv < (1, 24) and len(values) > 1:
        raise errors.BadRequest(f"Multiple member_of{suffix} parameters are not supported")
    for value in values:
        text = value
        forbidden = False
        if text.startswith("!"):
            if mv < (1, 32):
                raise errors.BadRequest(
                    "Forbidden member_of parameters are not supported in the specified "
                    "microversion"
                )
            forbidden = True
            text = text[1:]
        if text.startswith("in:"):
            parts = text[3:].split(",")
        else:
            parts = [text]
        uuids = set()
        for part in parts:
            canonical = normalize_uuid(part)
            if canonical is None:
                raise _bad_member_of(value)
            uuids.add(canonical)
        if forbidden:
            result.forbidden |= uuids
        else:
            result.any_of.append(uuids)
    return result


_RESOURCES_FORM = (
    "Badly formed resources parameter. Expected resources query string parameter "
    "in form: ?resources=VCPU:2,MEMORY_MB:1024. Got: {got}."
)


def parse_resources(text):
    """``VCPU:2,DISK_GB:10`` -> {"VCPU": 2, "DISK_GB": 10} (400 on bad input)."""
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
        if name in amounts:
            raise errors.BadRequest(
                f"Resource class {name} is requested more than once in resources parameter."
            )
        amounts[name] = amount
    return amounts


@dataclass
class RequiredTraits:
    """Trait filters: each set in ``any_of`` needs one member; none of ``forbidden``."""

    any_of: list = field(default_factory=list)
    forbidden: set = field(default_factory=set)

    def names(self):
        found = set(self.forbidden)
        for group in self.any_of:
            found |= group
        return found


def parse_required(values, mv):
    """Parse ``required`` values (repeated keys ANDed from 1.39, else the last one)."""
    result = RequiredTraits()
    if not values:
        return result
    if mv < (1, 39):
        values = values[-1:]
    allow_forbidden = mv >= (1, 22)
    form = "HW_CPU_X86_VMX,!CUSTOM_MAGIC" if allow_forbidden else "HW_CPU_X86_VMX,CUSTOM_MAGIC"

    def bad(value):
        return errors.BadRequest(
            "Invalid query string parameters: Expected 'required' parameter value of "
            f"the form: {form}. Got: {value}"
        )

    for value in values:
        if value.startswith("in:"):
            if mv < (1, 39):
                raise errors.BadRequest(
                    "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since "
                    "microversion 1.39."
                )
            names = value[3:].split(",")
            if not all(name.strip() for name in names):
                raise bad(value)
            if any(name.startswith("!") for name in names):
                raise errors.BadRequest(
                    "Invalid query string parameters: forbidden traits (prefixed with '!') "
                    f"cannot be mixed into an 'in:' trait list. Got: {value}"
                )
            result.any_of.append({name.strip() for name in names})
            continue
        names = value.split(",")
        if not all(name.strip() for name in names):
            raise bad(value)
        for name in names:
            name = name.strip()
            if name.startswith("!"):
                if not allow_forbidden or not name[1:]:
                    raise bad(value)
                result.forbidden.add(name[1:])
            else:
                result.any_of.append({name})
    return result


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
    """Provider ids with inventory of class ``rc_id`` able to take ``amount`` more.

    One allocation of ``amount`` must fit min_unit, max_unit and step_size,
    and used + amount must stay within (total - reserved) * allocation_ratio.
    """
    used = (
        Allocation.objects.filter(
            resource_provider_id=OuterRef("resource_provider_id"), resource_class_id=rc_id
        )
        .order_by()
        .values("resource_provider_id")
        .annotate(total_used=Sum("used"))
        .values("total_used")
    )
    capacity = ExpressionWrapper(
        (F("total") - F("reserved")) * F("allocation_ratio"), output_field=FloatField()
    )
    return (
        Inventory.objects.filter(
            resource_class_id=rc_id, min_unit__lte=amount, max_unit__gte=amount
        )
        .annotate(
            used_now=Coalesce(Subquery(used, output_field=IntegerField()), Value(0)),
            capacity_now=capacity,
            step_rest=Mod(Value(amount), F("step_size"), output_field=IntegerField()),
        )
        .filter(step_rest=0, capacity_now__gte=F("used_now") + Value(amount))
        .values("resource_provider_id")
    )


def _spellings(canonical_uuids):
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
            pk__in=ProviderAggregate.objects.filter(aggregate__uuid__in=_spellings(group)).values(
                "resource_provider_id"
            )
        )
    if member_of.forbidden:
        qs = qs.exclude(
            pk__in=ProviderAggregate.objects.filter(
                aggregate__uuid__in=_spellings(member_of.forbidden)
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


# Columns of the API list (provider_list_tuples), in tuple order.
PROVIDER_LIST_COLUMNS = ("uuid", "name", "generation", "parent__uuid", "root__uuid")


def provider_list_tuples(qs):
    """The API list's rows of a provider queryset, by id, as tuples of
    PROVIDER_LIST_COLUMNS: one query, no dicts or timestamps to build."""
    return list(qs.order_by("id").values_list(*PROVIDER_LIST_COLUMNS))


__all__ = [
    "MemberOf",
    "ProviderFilters",
    "RequiredTraits",
    "normalize_uuid",
    "parse_member_of",
    "parse_required",
    "parse_resources",
    "provider_aggregate_uuids",
    "provider_get",
    "provider_row",
    "provider_list_tuples",
    "provider_rows",
    "provider_trait_names",
    "providers_filter",
    "providers_list",
]
