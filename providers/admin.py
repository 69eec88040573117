"""Admin for providers: read-only (writes need generation and capacity checks,
which the API and its services do)."""
from django.contrib import admin

from console.admin_base import ReadOnlyAdmin, ReadOnlyInline
from providers.models import Aggregate, Inventory, ProviderAggregate, ProviderTrait, ResourceProvider


class InventoryInline(ReadOnlyInline):
    model = Inventory
    fields = ("resource_class", "total", "reserved", "min_unit", "max_unit", "step_size",
              "allocation_ratio")
    readonly_fields = fields


class TraitInline(ReadOnlyInline):
    model = ProviderTrait
    fields = readonly_fields = ("trait",)
    verbose_name = "trait"


class AggregateInline(ReadOnlyInline):
    model = ProviderAggregate
    fields = readonly_fields = ("aggregate",)
    verbose_name = "aggregate"


@admin.register(ResourceProvider)
class ResourceProviderAdmin(ReadOnlyAdmin):
    list_display = ("name", "uuid", "generation", "parent", "root")
    list_select_related = ("parent", "root")
    search_fields = ("name", "uuid")
    list_filter = (("parent", admin.EmptyFieldListFilter), "traits")
    fields = readonly_fields = ("uuid", "name", "generation", "parent", "root", "created_at",
                                "updated_at")
    inlines = (InventoryInline, TraitInline, AggregateInline)


@admin.register(Inventory)
class InventoryAdmin(ReadOnlyAdmin):
    list_display = ("resource_provider", "resource_class", "total", "reserved", "allocation_ratio",
                    "min_unit", "max_unit", "step_size")
    list_select_related = ("resource_provider", "resource_class")
    search_fields = ("resource_provider__name", "resource_provider__uuid")
    list_filter = ("resource_class",)


@admin.register(Aggregate)
class AggregateAdmin(ReadOnlyAdmin):
    list_display = ("uuid", "created_at")
    search_fields = ("uuid",)


@admin.register(ProviderTrait)
class ProviderTraitAdmin(ReadOnlyAdmin):
    list_display = ("resource_provider", "trait")
    list_select_related = ("resource_provider", "trait")
    search_fields = ("resource_provider__name", "trait__name")


@admin.register(ProviderAggregate)
class ProviderAggregateAdmin(ReadOnlyAdmin):
    list_display = ("resource_provider", "aggregate")
    list_select_related = ("resource_provider", "aggregate")
    search_fields = ("resource_provider__name", "aggregate__uuid")
