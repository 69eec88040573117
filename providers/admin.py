"""Admin for providers.

Every write on the provider page is a service call (``providers.services``
and ``providers.inventory_services``), the same functions the API uses:

* add a provider (name, optional uuid and parent): ``provider_create``;
* rename it: ``provider_update`` (its place in the tree is not edited here);
* delete it: ``provider_delete`` (refused while it has allocations or
  children; the refusal is shown as an error message);
* inventory rows (inline): ``inventory_delete`` / ``inventory_update`` /
  ``inventory_create``, so capacity rules and in-use checks apply and the
  provider generation goes up;
* traits and aggregates (inlines): ``provider_traits_set`` /
  ``provider_aggregates_set``.

The change form carries the generation the page was rendered with; the
inline writes are refused (409-style, as a message) when the provider has
changed since.  A refusal anywhere rolls back the whole save and shows
the page again with what was typed and the refusal on it
(``ServiceWritesAdmin``).  Over the inventory rows, a warning that
nova-compute rewrites the inventory of the compute nodes it manages.  The link-table and inventory list pages stay
read-only; allocations are read-only everywhere (see allocations/admin.py).
"""
from django import forms
from django.contrib import admin
from django.db import models
from django.forms.formsets import BaseFormSet
from django.forms.models import BaseInlineFormSet
from django.utils.html import format_html

from placement_core.admin import ReadOnlyAdmin, ServiceWritesAdmin
from placement_core import errors
from placement_core.uuids import normalize_uuid
from providers import inventory_services, locking, services
from providers.models import Aggregate, Inventory, ProviderAggregate, ProviderTrait, ResourceProvider

INVENTORY_FIELDS = ("resource_class", "total", "reserved", "min_unit", "max_unit", "step_size",
                    "allocation_ratio")

# Shown over the inventory rows and on the inventory list: nova-compute's
# resource tracker writes the inventory of the compute nodes it manages on
# every periodic update, so a hand edit there lasts only until the next one.
NOVA_WARNING = (
    "nova-compute's resource tracker rewrites the inventory of the compute nodes it manages "
    "(and of their child providers) on every periodic update, from the hypervisor and "
    "nova.conf: a total, reserved, min_unit, max_unit or step_size edited here on such a "
    "provider is overwritten within minutes. Change nova.conf (reserved_host_*, "
    "*_allocation_ratio) instead; an allocation_ratio edited here stays only while nova.conf "
    "leaves that ratio unset."
)
# nova-compute reports these on the root provider of every compute node.
NOVA_TRAIT_PREFIX = "COMPUTE_"


def nova_traits(provider) -> list[str]:
    """The traits nova-compute reports that the root of ``provider``'s tree
    carries (none: the tree is not, or not yet, a compute node's)."""
    return list(ProviderTrait.objects.filter(
        resource_provider_id=provider.root_id or provider.pk,
        trait__name__startswith=NOVA_TRAIT_PREFIX,
    ).order_by("trait__name").values_list("trait__name", flat=True)[:5])


class _WritableInline(admin.TabularInline):
    extra = 0
    show_change_link = False


class _LinkFormSet(BaseInlineFormSet):
    """The link tables' rows have a composite key, which Django's formsets
    cannot read back from a posted form: a posted row that existed is the
    row at its position in the list the page showed (a page whose provider
    moved meanwhile is refused on its generation anyway)."""

    def _construct_form(self, i, **kwargs):
        if self.is_bound and i < self.initial_form_count():
            rows = list(self.get_queryset())
            if i < len(rows):
                kwargs["instance"] = rows[i]
            return BaseFormSet._construct_form(self, i, **kwargs)
        return super()._construct_form(i, **kwargs)

    def add_fields(self, form, index):
        super().add_fields(form, index)
        # Rendered (the admin's template wants it), never read back.
        form.fields[self.model._meta.pk.name].required = False
        form.fields[self.model._meta.pk.name].disabled = True


class InventoryInline(_WritableInline):
    model = Inventory
    fields = INVENTORY_FIELDS
    template = "providers/admin/inventory_inline.html"
    # The ratio as narrow as the integers beside it (a float's default input
    # is as wide as a text field and pushed the rows past the page).
    formfield_overrides = {
        models.FloatField: {"widget": forms.NumberInput(attrs={"class": "vIntegerField",
                                                               "step": "any"})},
    }
    autocomplete_fields = ("resource_class",)

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("resource_class", "resource_provider")


class TraitInline(_WritableInline):
    model = ProviderTrait
    formset = _LinkFormSet
    fields = ("trait",)
    autocomplete_fields = ("trait",)
    verbose_name = "trait"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("trait", "resource_provider")


class ProviderAggregateForm(forms.ModelForm):
    aggregate_uuid = forms.CharField(label="Aggregate uuid", max_length=36)

    class Meta:
        model = ProviderAggregate
        fields = ()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if _stored(self.instance):
            self.fields["aggregate_uuid"].initial = self.instance.aggregate.uuid

    def clean_aggregate_uuid(self):
        value = self.cleaned_data["aggregate_uuid"].strip()
        if normalize_uuid(value) is None:
            raise forms.ValidationError("Enter a uuid.")
        return value


class AggregateInline(_WritableInline):
    model = ProviderAggregate
    formset = _LinkFormSet
    form = ProviderAggregateForm
    fields = ("aggregate_uuid",)
    verbose_name = "aggregate"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("aggregate", "resource_provider")


class ResourceProviderForm(forms.ModelForm):
    # The generation the page showed; inline writes are refused if it moved.
    seen_generation = forms.IntegerField(widget=forms.HiddenInput, required=False)

    class Meta:
        model = ResourceProvider
        fields = ("name", "uuid", "parent")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "uuid" in self.fields:
            self.fields["uuid"].required = False
            self.fields["uuid"].help_text = "Leave empty for a new random uuid."
        if self.instance.pk:
            self.fields["seen_generation"].initial = self.instance.generation

    def clean_uuid(self):
        value = (self.cleaned_data.get("uuid") or "").strip()
        if not value:
            return ""
        canonical = normalize_uuid(value)
        if canonical is None:
            raise forms.ValidationError("Enter a uuid.")
        return canonical


def _refused(provider, seen):
    return errors.Conflict(
        f"resource provider {provider.uuid} changed while you edited it (generation "
        f"{provider.generation}, the page showed {seen}); reload the page and try again.",
        code=errors.CONCURRENT_UPDATE,
    )


@admin.register(ResourceProvider)
class ResourceProviderAdmin(ServiceWritesAdmin):
    form = ResourceProviderForm
    # Narrow columns: the uuid cut to its first block and the parent and root
    # by name in one column (whole uuids on hover); as "name (uuid)" a
    # child's three uuids pushed the list past the page's width.
    list_display = ("name", "short_uuid", "parent_name", "generation")
    list_select_related = ("parent", "root")
    # Traits are searched, not listed as a filter: a cloud has hundreds.
    search_fields = ("name", "uuid", "traits__name")
    list_filter = (("parent", admin.EmptyFieldListFilter),)
    autocomplete_fields = ("parent",)
    inlines = (InventoryInline, TraitInline, AggregateInline)
    actions = None  # bulk deletes would bypass provider_delete's checks

    @admin.display(description="uuid", ordering="uuid")
    def short_uuid(self, provider):
        return format_html('<span title="{}">{}…</span>', provider.uuid, provider.uuid[:8])

    @admin.display(description="parent (root)", ordering="parent__name")
    def parent_name(self, provider):
        if provider.parent is None:
            return "-"
        if provider.root_id in (None, provider.parent_id):
            return _named(provider.parent)
        return format_html("{} ({})", _named(provider.parent), _named(provider.root))

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        extra = {"nova_warning": NOVA_WARNING, "nova_managed": "", "nova_traits": []}
        obj = self.get_object(request, object_id) if object_id else None
        if obj is not None:
            extra["nova_traits"] = nova_traits(obj)
            if extra["nova_traits"]:
                extra["nova_managed"] = obj.root.name if obj.root_id else obj.name
        return super().changeform_view(request, object_id, form_url,
                                       {**extra, **(extra_context or {})})

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("name", "uuid", "parent", "seen_generation")
        return ("name", "seen_generation", "uuid", "generation", "parent", "root", "created_at",
                "updated_at")

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        return ("uuid", "generation", "parent", "root", "created_at", "updated_at")

    # -- the provider row -------------------------------------------------

    def save_model(self, request, obj, form, change):
        if change:
            services.provider_update(uuid=obj.uuid, name=form.cleaned_data["name"])
            return
        parent = form.cleaned_data.get("parent")
        created = services.provider_create(
            name=form.cleaned_data["name"],
            uuid=form.cleaned_data.get("uuid") or None,
            parent_provider_uuid=parent.uuid if parent is not None else None,
        )
        for attr in ("pk", "uuid", "name", "generation", "parent_id", "root_id"):
            setattr(obj, attr, getattr(created, attr))
        obj._state.adding = False

    def get_deleted_objects(self, objs, request):
        deleted, counts, _perms_needed, protected = super().get_deleted_objects(objs, request)
        # provider_delete removes the inventories and links itself, and makes
        # the in-use / has-children refusal; on POST let it decide.
        if request.method == "POST":
            protected = []
        return deleted, counts, set(), protected

    def delete_model(self, request, obj):
        services.provider_delete(uuid=obj.uuid)

    # -- the inlines --------------------------------------------------------

    def save_related(self, request, form, formsets, change):
        form.save_m2m()
        for formset in formsets:
            # The admin's change message reads these; the writes below are
            # service calls, not formset.save(), so list what they did here.
            formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
            for f in _changed_forms(formset):
                if _deleting(formset, f):
                    formset.deleted_objects.append(_Described(formset, f))
                elif _stored(f.instance):
                    formset.changed_objects.append((_Described(formset, f), f.changed_data))
                else:
                    formset.new_objects.append(_Described(formset, f))
        writes = [fs for fs in formsets if _changed_forms(fs)]
        if not writes:
            return
        provider = form.instance
        seen = form.cleaned_data.get("seen_generation") if change else None
        with_lock = locking.lock_provider_by_uuid(provider.uuid)
        if seen is not None and seen != with_lock.generation:
            raise _refused(with_lock, seen)
        generation = with_lock.generation
        writers = {
            Inventory: self._write_inventories,
            ProviderTrait: self._write_traits,
            ProviderAggregate: self._write_aggregates,
        }
        for formset in writes:
            generation = writers[formset.model](provider, formset, generation)

    @staticmethod
    def _write_inventories(provider, formset, generation):
        deletes, updates, creates = [], [], []
        for f in _changed_forms(formset):
            original = None
            if f.instance.pk:
                original = (
                    Inventory.objects.select_related("resource_class").filter(pk=f.instance.pk).first()
                )
            if _deleting(formset, f):
                if original is not None:
                    deletes.append(original.resource_class.name)
                continue
            data = f.cleaned_data
            spec = inventory_services.InventorySpec(
                total=data["total"], reserved=data["reserved"], min_unit=data["min_unit"],
                max_unit=data["max_unit"], step_size=data["step_size"],
                allocation_ratio=data["allocation_ratio"],
            )
            name = data["resource_class"].name
            if original is not None and original.resource_class.name != name:
                deletes.append(original.resource_class.name)
                original = None
            (updates if original is not None else creates).append((name, spec))
        for name in deletes:
            generation = inventory_services.inventory_delete(
                provider_uuid=provider.uuid, resource_class=name
            ).generation
        for name, spec in updates:
            updated, _ = inventory_services.inventory_update(
                provider_uuid=provider.uuid, resource_class=name, generation=generation,
                spec=spec, reserved_may_equal_total=True,
            )
            generation = updated.generation
        for name, spec in creates:
            created, _ = inventory_services.inventory_create(
                provider_uuid=provider.uuid, resource_class=name, generation=generation,
                spec=spec, reserved_may_equal_total=True,
            )
            generation = created.generation
        return generation

    @staticmethod
    def _write_traits(provider, formset, generation):
        names = [
            f.cleaned_data["trait"].name
            for f in formset.forms
            if f.cleaned_data.get("trait") is not None and not _deleting(formset, f)
        ]
        return services.provider_traits_set(
            uuid=provider.uuid, trait_names=names, generation=generation
        ).generation

    @staticmethod
    def _write_aggregates(provider, formset, generation):
        uuids = [
            f.cleaned_data["aggregate_uuid"]
            for f in formset.forms
            if f.cleaned_data.get("aggregate_uuid") and not _deleting(formset, f)
        ]
        return services.provider_aggregates_set(
            uuid=provider.uuid, aggregate_uuids=uuids, generation=generation, bump=True
        ).generation


def _named(provider):
    if provider is None:
        return "-"
    return format_html('<span title="{}">{}</span>', provider.uuid, provider.name)


def _stored(instance):
    """The inline row exists (a link's key is a pair: (None, None) while new)."""
    pk = instance.pk
    return all(v is not None for v in pk) if isinstance(pk, tuple) else pk is not None


def _deleting(formset, form):
    return bool(formset.can_delete and form.cleaned_data.get("DELETE"))


class _Described:
    """An inline row as the admin's change message names it."""

    def __init__(self, formset, form):
        self._meta = formset.model._meta
        data = form.cleaned_data
        value = data.get("resource_class") or data.get("trait") or data.get("aggregate_uuid")
        self.text = str(getattr(value, "name", value))

    def __str__(self):
        return self.text


def _changed_forms(formset):
    """Forms of ``formset`` that add, change or delete a row."""
    return [
        f for f in formset.forms
        if f.has_changed() or (_stored(f.instance) and _deleting(formset, f))
    ]


@admin.register(Inventory)
class InventoryAdmin(ReadOnlyAdmin):
    """Read-only list; inventories are edited on their provider's page."""

    read_only_note = "Inventories are edited on their provider's page. " + NOVA_WARNING

    list_display = ("provider", "resource_class", "total", "reserved", "allocation_ratio",
                    "min_unit", "max_unit", "step_size")
    list_select_related = ("resource_provider", "resource_class")

    @admin.display(description="resource provider", ordering="resource_provider__name")
    def provider(self, inventory):
        # The name alone (its uuid on hover): name and uuid pushed the
        # table past the page's width.
        rp = inventory.resource_provider
        return format_html('<span title="{}">{}</span>', rp.uuid, rp.name)

    # Classes are searched, not listed in a sidebar: the standard ones alone
    # are over forty, and the list squeezed the table out of the page.
    search_fields = ("resource_provider__name", "resource_provider__uuid",
                     "resource_class__name")


@admin.register(Aggregate)
class AggregateAdmin(ReadOnlyAdmin):
    list_display = ("uuid", "created_at")
    search_fields = ("uuid",)


# ProviderTrait and ProviderAggregate (upstream's link tables, whose primary
# keys are composite) have no list pages of their own: Django's admin takes
# no model with a composite key; they are edited on their provider's page.

