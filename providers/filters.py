"""The one provider FilterSet: ``GET /resource_providers`` and the console's list.

``ResourceProviderFilterSet`` is a django-filter FilterSet over
ResourceProvider.  Its filters hold no query logic of their own: each one
hands its value to a ``providers.selectors.filter_*`` function, the same
rules the rest of the service uses.

Values are parsed in two steps:

1. the form keeps every value raw (no stripping, and ``member_of`` /
   ``required`` keep all of a repeated key's values);
2. the form's ``clean`` parses the values that have a syntax (``member_of``,
   ``resources``, ``required``, and the console's ``aggregate`` / ``trait``)
   with the selectors' parsers *at the microversion passed in*, so the
   ``in:`` / ``!`` / repeated forms and upstream's 400 messages are exactly
   the API's.

Which parameters exist at which microversion (and NUL bytes) is the API
view's business: it validates the query string before building the
FilterSet, and the console has no microversion (it gets the newest).

Two modes:

* strict (the API): ``qs`` raises the first ``PlacementError``: parse errors
  first, in the order member_of, resources, required; then look-up errors
  (unknown trait, unknown resource class) in filter order -- unless, as
  upstream, an earlier filter matches no provider at all (an unknown
  ``in_tree`` provider, traits or aggregates nobody has): then the list
  is empty (``selectors.nothing_can_match``).
* lenient (the console): blank values count as absent, and errors do not
  raise: ``problems`` lists their messages and ``qs`` is empty.
"""
import django_filters
from django import forms

from placement_core import errors
from placement_core import querystring
from placement_core.microversion import MAX_VERSION
from providers import selectors
from providers.models import ResourceProvider


class _ListWidget(forms.Widget):
    """Every value of a repeated query key (None when the key is absent)."""

    def value_from_datadict(self, data, files, name):
        if name not in data:
            return None
        if hasattr(data, "getlist"):
            return data.getlist(name)
        value = data[name]
        return list(value) if isinstance(value, (list, tuple)) else [value]


class _RawField(forms.Field):
    """The value as sent (a string, or a list with ``_ListWidget``); None when absent."""

    def to_python(self, value):
        return value


class SelectorFilter(django_filters.Filter):
    """A filter that passes its (parsed) value to a selectors function.

    Unlike django-filter's own filters, an empty string is a value (the API
    answers ``?name=`` and ``?resources=`` like upstream); only an absent
    key (None) leaves the queryset alone.
    """

    field_class = _RawField

    def __init__(self, apply, *, many=False, **kwargs):
        self.apply = apply
        if many:
            kwargs["widget"] = _ListWidget()
        super().__init__(**kwargs)

    def filter(self, qs, value):
        if value is None:
            return qs
        return self.apply(qs, value)


def _parse_member_of(values, mv):
    return querystring.parse_member_of(values, mv)


def _parse_resources(text, mv):
    return querystring.parse_resources(text)


def _parse_required(values, mv):
    return querystring.parse_required(values, mv)


def _parse_one_member_of(text, mv):
    return querystring.parse_member_of([text.strip()], mv)


def _parse_one_trait(text, mv):
    return querystring.parse_required([text.strip()], mv)


# The API's parse order (its 400 for a query with several bad values names
# the first of these), then the console's own spellings.
PARSERS = (
    ("member_of", _parse_member_of),
    ("resources", _parse_resources),
    ("required", _parse_required),
    ("aggregate", _parse_one_member_of),
    ("trait", _parse_one_trait),
)


class ProviderFilterForm(forms.Form):
    """Parses the structured values at ``microversion`` (set by the FilterSet)."""

    microversion = MAX_VERSION
    lenient = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.placement_errors = []

    def clean(self):
        data = super().clean()
        if self.lenient:
            for name, value in list(data.items()):
                if _blank(value):
                    data[name] = None
        for name, parse in PARSERS:
            value = data.get(name)
            if value is None:
                continue
            try:
                data[name] = parse(value, self.microversion)
            except errors.PlacementError as exc:
                self.placement_errors.append(exc)
                self.add_error(name, exc.detail)
        return data


def _blank(value):
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, list):
        return not any(item.strip() for item in value)
    return False


class ResourceProviderFilterSet(django_filters.FilterSet):
    """Filters of the provider list; see the module docstring for the two modes."""

    # The API's parameters, in the order their look-ups run (upstream's).
    name = SelectorFilter(selectors.filter_name, label="Name")
    uuid = SelectorFilter(selectors.filter_uuid, label="UUID")
    in_tree = SelectorFilter(selectors.filter_in_tree, label="In the tree of (uuid)")
    required = SelectorFilter(selectors.filter_required, many=True, label="Required traits")
    member_of = SelectorFilter(selectors.filter_member_of, many=True, label="Member of aggregates")
    resources = SelectorFilter(
        selectors.filter_resources, label="Has capacity for (VCPU:2,MEMORY_MB:512)"
    )
    # The console's extras (the API's query schema does not admit them).
    q = SelectorFilter(selectors.filter_search, label="Name or uuid contains")
    aggregate = SelectorFilter(selectors.filter_member_of, label="Aggregate uuid")
    trait = SelectorFilter(selectors.filter_required, label="Trait (or !TRAIT)")
    roots_only = django_filters.BooleanFilter(
        field_name="parent", lookup_expr="isnull", label="Roots only"
    )

    class Meta:
        model = ResourceProvider
        fields = []
        form = ProviderFilterForm

    def __init__(self, data=None, queryset=None, *, microversion=MAX_VERSION, lenient=False,
                 **kwargs):
        if queryset is None:
            queryset = ResourceProvider.objects.all()
        super().__init__(data, queryset, **kwargs)
        self.microversion = microversion
        self.lenient = lenient

    @property
    def form(self):
        if not hasattr(self, "_form"):
            form = super().form
            form.microversion = self.microversion
            form.lenient = self.lenient
        return self._form

    def filter_queryset(self, queryset):
        found = self.form.placement_errors
        if found:
            if self.lenient:
                return queryset.none()
            raise found[0]
        applied = {}
        for name, value in self.form.cleaned_data.items():
            try:
                queryset = self.filters[name].filter(queryset, value)
            except errors.PlacementError as exc:
                if not self.lenient:
                    if selectors.nothing_can_match(applied):
                        return queryset.none()
                    raise
                found.append(exc)
                return queryset.none()
            if value is not None:
                applied[name] = value
        return queryset

    @property
    def problems(self):
        """Messages of the errors met so far (lenient mode shows them)."""
        if not self.is_bound:
            return []
        self.qs  # noqa: B018 - runs the parse and the look-ups
        return [exc.detail for exc in self.form.placement_errors]
