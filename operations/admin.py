"""Admin for the kept records: the allocation history, usage snapshots and job
locks, all read-only (commands and the claim's own transaction write them)."""
from django.contrib import admin

from operations.models import AllocationChange, JobLock, UsageSnapshot
from placement_core.admin import ReadOnlyAdmin


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


@admin.register(JobLock)
class JobLockAdmin(ReadOnlyAdmin):
    """Which maintenance job last held its lock, and when."""

    list_display = ("name", "taken_at")
