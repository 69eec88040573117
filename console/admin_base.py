"""Admin building blocks shared by the apps' admin.py files.

Writes to placement data must go through the services (generation bumps,
capacity and in-use checks), so the admin is read-only except where a
service backs the action.
"""
from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """Browse, search and filter; no add, change or delete."""

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
