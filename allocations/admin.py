"""Admin for consumers and allocations: read-only (allocation writes need the
generation and capacity checks of the services)."""
from django.contrib import admin
from django.utils.html import format_html

from allocations.models import Allocation, Consumer, ConsumerType, Project, User
from placement_core.admin import ReadOnlyAdmin, ReadOnlyInline

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
