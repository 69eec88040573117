"""The console's provider list filters (django-filter)."""
import django_filters
from django.db.models import F, FloatField, IntegerField, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import Cast, Coalesce

from allocations.models import Allocation
from providers.models import Inventory, ResourceProvider


def parse_resources(text):
    """``VCPU:2,MEMORY_MB:512`` -> {"VCPU": 2, "MEMORY_MB": 512}; ValueError if malformed."""
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, amount = part.partition(":")
        if not sep or not name.strip() or not amount.strip().isdigit() or int(amount) < 1:
            raise ValueError(f"bad resources entry {part!r}: expected CLASS:AMOUNT, amount >= 1")
        out[name.strip().upper()] = int(amount)
    return out


def with_capacity_for(queryset, resources):
    """Providers that could take ``resources`` each on their own."""
    for name, amount in resources.items():
        used = (Allocation.objects.filter(resource_provider=OuterRef("resource_provider"),
                                          resource_class__name=name)
                .values("resource_provider").annotate(s=Sum("used")).values("s"))
        fitting = (
            Inventory.objects.filter(resource_class__name=name, min_unit__lte=amount,
                                     max_unit__gte=amount)
            .annotate(used=Coalesce(Subquery(used, output_field=IntegerField()), Value(0)))
            .annotate(cap=Cast(F("total") - F("reserved"), FloatField()) * F("allocation_ratio"))
            .filter(cap__gte=F("used") + amount)
            .values("resource_provider")
        )
        queryset = queryset.filter(pk__in=fitting)
    return queryset


class ProviderFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_q", label="Name or uuid contains")
    aggregate = django_filters.CharFilter(field_name="aggregates__uuid", label="Aggregate uuid")
    trait = django_filters.CharFilter(method="filter_trait", label="Trait")
    resources = django_filters.CharFilter(method="filter_resources",
                                          label="Has capacity for (VCPU:2,MEMORY_MB:512)")
    roots_only = django_filters.BooleanFilter(field_name="parent", lookup_expr="isnull",
                                              label="Roots only")

    class Meta:
        model = ResourceProvider
        fields = []

    problems: list

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.problems = []

    def filter_q(self, queryset, name, value):
        value = value.strip()
        return queryset.filter(Q(name__icontains=value) | Q(uuid__icontains=value)) if value else queryset

    def filter_trait(self, queryset, name, value):
        value = value.strip().upper()
        if value.startswith("!"):
            return queryset.exclude(traits__name=value[1:])
        return queryset.filter(traits__name=value) if value else queryset

    def filter_resources(self, queryset, name, value):
        try:
            resources = parse_resources(value)
        except ValueError as exc:
            self.problems.append(str(exc))
            return queryset.none()
        return with_capacity_for(queryset, resources)
