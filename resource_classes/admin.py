"""Admin for the catalogs: custom names can be added and deleted through the
services (name rules, in-use checks); standard names are read-only."""
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django import forms

from placement_core import errors
from resource_classes import services
from resource_classes.models import ResourceClass, Trait


class _NameForm(forms.ModelForm):
    def clean_name(self):
        name = self.cleaned_data["name"]
        if not services.is_valid_custom_name(name):
            raise ValidationError("Use CUSTOM_ followed by A-Z, 0-9 and _ (at most 255 characters).")
        return name


class _CatalogAdmin(admin.ModelAdmin):
    list_display = ("name", "is_custom", "created_at")
    search_fields = ("name",)
    fields = ("name",)
    actions = None

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return obj is None or obj.is_custom

    def get_form(self, request, obj=None, **kwargs):
        kwargs["form"] = type("Form", (_NameForm,), {"Meta": type("Meta", (), {
            "model": self.model, "fields": ["name"]})})
        return super().get_form(request, obj, **kwargs)

    def delete_model(self, request, obj):
        try:
            self.delete_via_service(obj.name)
        except errors.PlacementError as exc:
            self.message_user(request, str(exc), messages.ERROR)


class CustomFilter(admin.SimpleListFilter):
    title = "kind"
    parameter_name = "kind"

    def lookups(self, request, model_admin):
        return (("custom", "custom"), ("standard", "standard"))

    def queryset(self, request, queryset):
        if self.value() == "custom":
            return queryset.filter(name__startswith="CUSTOM_")
        if self.value() == "standard":
            return queryset.exclude(name__startswith="CUSTOM_")
        return queryset


@admin.register(ResourceClass)
class ResourceClassAdmin(_CatalogAdmin):
    list_filter = (CustomFilter,)

    def save_model(self, request, obj, form, change):
        created = services.resource_class_create(name=obj.name)
        obj.pk = created.pk

    def delete_via_service(self, name):
        services.resource_class_delete(name=name)


@admin.register(Trait)
class TraitAdmin(_CatalogAdmin):
    list_filter = (CustomFilter,)

    def save_model(self, request, obj, form, change):
        trait, _ = services.trait_ensure(name=obj.name)
        obj.pk = trait.pk

    def delete_via_service(self, name):
        services.trait_delete(name=name)
