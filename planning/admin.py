"""Admin for the flavors stored for headroom: added and deleted through their
services."""
from django.contrib import admin

from placement_core.admin import ServiceWritesAdmin
from planning import flavor_services
from planning.forms import FlavorForm
from planning.models import Flavor


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
