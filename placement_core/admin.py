"""Admin building blocks shared by the apps' admin.py files (no models of its own).

Writes to placement data must go through the services (generation bumps,
capacity and in-use checks), so the admin is read-only except where a
service backs the action.
"""
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from placement_core import errors
from placement_core.querystring import nul_problem


class ReadOnlyAdmin(admin.ModelAdmin):
    """Browse, search and filter; no add, change or delete."""

    #: When set, shown on the list and detail pages (why this is read-only).
    read_only_note = ""

    def _show_note(self, request):
        if self.read_only_note:
            self.message_user(request, self.read_only_note, messages.INFO)

    def changelist_view(self, request, extra_context=None):
        self._show_note(request)
        return super().changelist_view(request, extra_context)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        self._show_note(request)
        return super().change_view(request, object_id, form_url, extra_context)

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


# The request attribute that holds a refused save while its form is shown again.
REFUSED_SAVE = "placement_refused_save"


class ServiceWritesAdmin(admin.ModelAdmin):
    """An admin whose writes are service calls, refused writes shown on the form.

    Django runs a POSTed add/change/delete view in one transaction; when a
    service raises a PlacementError (409 in use, generation conflict, 400
    validation...) it propagates out of that transaction, so everything the
    request wrote so far is rolled back. A refused add or change then shows
    the same form again, bound to what was typed, with the refusal as its
    error (the view runs a second time with the form made invalid, so that
    pass writes nothing); a refused delete is an error message on the
    provider's page.
    """

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except errors.PlacementError as exc:
            if request.method != "POST" or hasattr(request, REFUSED_SAVE):
                self.message_user(request, f"Not saved: {exc.detail}", messages.ERROR)
                return HttpResponseRedirect(request.get_full_path())
            setattr(request, REFUSED_SAVE, exc)
            return super().changeform_view(request, object_id, form_url, extra_context)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        refused = getattr(request, REFUSED_SAVE, None)
        if refused is None:
            return form
        return type(form.__name__, (form,), {"clean": _refusing(form, refused)})

    def delete_view(self, request, object_id, extra_context=None):
        try:
            return super().delete_view(request, object_id, extra_context)
        except errors.PlacementError as exc:
            self.message_user(request, f"Not deleted: {exc.detail}", messages.ERROR)
            opts = self.opts
            return HttpResponseRedirect(
                reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[object_id])
            )


def _refusing(form, refused):
    """A ``clean`` that adds the service's refusal as the form's error."""

    def clean(self):
        cleaned = form.clean(self)
        self.add_error(None, f"Not saved: {refused.detail}")
        return cleaned

    return clean


# The longest admin search (or autocomplete) text: far longer than anything
# searched (names and ids: at most 255 characters), far shorter than the
# LIKE pattern SQLite refuses (50,000 bytes).
SEARCH_MAX = 1000


class AdminInputMiddleware:
    """What the admin refuses with a 400 page before its views read
    anything, for every model admin (Django's own too): a NUL character in
    the address or a field (PostgreSQL cannot be asked about it), a search
    text past ``SEARCH_MAX``, and a selected row or an autocomplete choice
    that is no id (Django's views raise on those)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        match = request.resolver_match
        if match is None or match.namespace != admin.site.name or not request.user.is_staff:
            return None
        problem = (nul_problem(request, view_kwargs) or _search_problem(request)
                   or _id_problem(request, getattr(view_func, "model_admin", None)))
        if problem is None:
            return None
        return render(request, "placement_core/admin_bad_request.html",
                      {**admin.site.each_context(request), "problem": problem}, status=400)


def _search_problem(request):
    for name in ("q", "term"):  # the change list's search, the autocomplete's
        if len(request.GET.get(name, "")) > SEARCH_MAX:
            return f"A search text is at most {SEARCH_MAX} characters."
    return None


def _id_problem(request, model_admin):
    """The rows an action was asked for and the autocomplete choices of a
    form, each of which must be an id of its model."""
    if model_admin is None or request.method != "POST":
        return None
    opts = model_admin.model._meta
    wanted = [("_selected_action", opts.pk, value, True)
              for value in request.POST.getlist("_selected_action")]
    wanted += [(name, opts.get_field(name).target_field, value, False)
               for name in model_admin.autocomplete_fields
               for value in request.POST.getlist(name)]
    for name, field, value, required in wanted:
        if not required and value in field.empty_values:
            continue
        try:
            number = field.to_python(value)
            if number in field.empty_values:
                raise ValidationError("empty")
            field.run_validators(number)  # within the column's range
        except ValidationError:
            return f"The field {name!r} holds {value[:40]!r}, which is not an id."
    return None
