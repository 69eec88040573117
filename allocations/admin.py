"""Admin for consumers and allocations: read-only (allocation writes need the
generation and capacity checks of the services). Flavors (for headroom) are
added and deleted through their services."""
from django.contrib import admin
from django.utils.html import format_html

from allocations import flavor_services
from allocations.forms import FlavorForm
from allocations.models import (
    Allocation,
    AllocationChange,
    Consumer,
    ConsumerType,
    Flavor,
    JobLock,
    Project,
    UsageSnapshot,
    User,
)
from placement_core.admin import ReadOnlyAdmin, ReadOnlyInline, ServiceWritesAdmin

ALLOCATIONS_READ_ONLY = (
    "Allocations are read-only in the admin: they are written through the API "
    "(PUT /allocations/{consumer_uuid}, POST /allocations, POST /reshaper), whose "
    "services check capacity and consumer and provider generations."
)


class AllocationInline(ReadOnlyInline):
    model = Allocation
    fields = readonly_fields = ("resource_provider", "resource_class", "used")


@admin.register(Consumer)
class ConsumerAdmin(ReadOnlyAdmin):
    read_only_note = ALLOCATIONS_READ_ONLY
    list_display = ("uuid", "project", "user", "consumer_type", "generation", "updated_at")
    list_select_related = ("project", "user", "consumer_type")
    search_fields = ("uuid", "project__external_id", "user__external_id")
    list_filter = ("consumer_type",)
    fields = readonly_fields = ("uuid", "project", "user", "consumer_type", "generation",
                                "created_at", "updated_at")
    inlines = (AllocationInline,)


@admin.register(Allocation)
class AllocationAdmin(ReadOnlyAdmin):
    read_only_note = ALLOCATIONS_READ_ONLY
    list_display = ("consumer", "provider", "resource_class", "used")
    list_select_related = ("consumer", "resource_provider", "resource_class")

    @admin.display(description="resource provider", ordering="resource_provider__name")
    def provider(self, allocation):
        # The name alone (its uuid on hover), so the table fits the page.
        rp = allocation.resource_provider
        return format_html('<span title="{}">{}</span>', rp.uuid, rp.name)

    # Classes are searched, not listed in a sidebar (over forty of them).
    search_fields = ("consumer__uuid", "resource_provider__name", "resource_provider__uuid",
                     "resource_class__name")


@admin.register(Project)
class ProjectAdmin(ReadOnlyAdmin):
    list_display = ("external_id", "created_at")
    search_fields = ("external_id",)


@admin.register(User)
class UserAdmin(ReadOnlyAdmin):
    list_display = ("external_id", "created_at")
    search_fields = ("external_id",)


@admin.register(ConsumerType)
class ConsumerTypeAdmin(ReadOnlyAdmin):
    list_display = ("name", "created_at")
    search_fields = ("name",)


@admin.register(AllocationChange)
class AllocationChangeAdmin(ReadOnlyAdmin):
    read_only_note = "The allocation history is append-only; prune_allocation_history trims it."
    list_display = ("created_at", "consumer_uuid", "provider_uuid", "resource_class",
                    "amount_before", "amount_after", "request_id", "source")
    search_fields = ("consumer_uuid", "provider_uuid", "request_id", "global_request_id",
                     "resource_class")
    list_filter = ("source",)


@admin.register(UsageSnapshot)
class UsageSnapshotAdmin(ReadOnlyAdmin):
    read_only_note = "Written by take_usage_snapshot; the console's Usage page charts them."
    list_display = ("taken_at", "resource_class", "aggregate_uuid", "capacity", "used")
    search_fields = ("aggregate_uuid", "resource_class")


@admin.register(Flavor)
class FlavorAdmin(ServiceWritesAdmin):
    """Flavors for headroom: added and deleted through the services (the same
    form and checks as the console's Flavors page); a flavor is replaced by
    deleting and adding it, not edited."""

    form = FlavorForm
    list_display = ("name", "resources", "created_at")
    search_fields = ("name", "resources")
    fields = ("name", "resources")

    def has_change_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        obj.pk = flavor_services.flavor_create(name=obj.name, resources=obj.resources).pk

    def delete_model(self, request, obj):
        flavor_services.flavor_delete(name=obj.name)

    def delete_queryset(self, request, queryset):
        for name in queryset.values_list("name", flat=True):
            flavor_services.flavor_delete(name=name)


@admin.register(JobLock)
class JobLockAdmin(ReadOnlyAdmin):
    """Which maintenance job last held its lock, and when."""

    list_display = ("name", "taken_at")
