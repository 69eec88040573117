"""Admin building blocks shared by the apps' admin.py files (no models of its own).

Writes to placement data must go through the services (generation bumps,
capacity and in-use checks), so the admin is read-only except where a
service backs the action.
"""
from django.contrib import admin, messages
from django.http import HttpResponseRedirect
from django.urls import reverse

from placement_site import errors


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


class ServiceWritesAdmin(admin.ModelAdmin):
    """An admin whose writes are service calls, refused writes shown as messages.

    Django runs a POSTed add/change/delete view in one transaction; when a
    service raises a PlacementError (409 in use, generation conflict, 400
    validation...) it propagates out of that transaction, so everything the
    request wrote so far is rolled back, and the error is shown as an admin
    error message on the page the user came from.
    """

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except errors.PlacementError as exc:
            self.message_user(request, f"Not saved: {exc.detail}", messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def delete_view(self, request, object_id, extra_context=None):
        try:
            return super().delete_view(request, object_id, extra_context)
        except errors.PlacementError as exc:
            self.message_user(request, f"Not deleted: {exc.detail}", messages.ERROR)
            opts = self.opts
            return HttpResponseRedirect(
                reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[object_id])
            )
