"""What operators keep and check over time: the allocation history, the
usage snapshots and the maintenance jobs' locks.

The tables kept their names when these models moved here from
``allocations`` (a state-only migration on both sides): no row moved.
"""
from django.db import models


class AllocationChange(models.Model):
    """One (consumer, provider, class) amount that a write changed: the history.

    Appended in the transaction of the write itself, so a rolled-back write
    leaves none.  Uuids and names are copied rather than referenced so the
    record outlives the consumer, provider or class it names.  An amount of
    0 means "no allocation" (before: newly made; after: removed).
    """

    consumer_uuid = models.CharField(max_length=36)
    provider_uuid = models.CharField(max_length=36)
    resource_class = models.CharField(max_length=255)
    amount_before = models.IntegerField()
    amount_after = models.IntegerField()
    # The consumer's generation after the write (at deletion for a DELETE).
    consumer_generation = models.IntegerField(null=True)
    request_id = models.CharField(max_length=64, blank=True, default="")
    global_request_id = models.CharField(max_length=64, blank=True, default="")
    user_id = models.CharField(max_length=255, blank=True, default="")
    project_id = models.CharField(max_length=255, blank=True, default="")
    microversion = models.CharField(max_length=16, blank=True, default="")
    # Where the change came from: the API write ("PUT /allocations",
    # "POST /allocations", "DELETE /allocations", "POST /reshaper") or the
    # command's name ("load_json", "import_upstream", "audit_allocations",
    # "demo_cloud"); "internal" for a service called outside both.
    source = models.CharField(max_length=64, default="api")
    # A change of the consumer's owner made by the same write, e.g.
    # "project a -> b; consumer_type INSTANCE -> MIGRATION" (the amounts
    # may be unchanged); empty when the owner stayed.
    owner_change = models.TextField(blank=True, default="")
    # What happened to the consumer itself when no amount changed:
    # "consumer_deleted" for one deleted because it held no allocations
    # (the audit's fix), whose row names no provider or class.
    event = models.CharField(max_length=32, blank=True, default="", db_default="")
    created_at = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "allocation_changes"
        ordering = ["id"]
        indexes = [
            models.Index(fields=["consumer_uuid", "id"]),
            models.Index(fields=["provider_uuid", "id"]),
        ]

    def __str__(self):
        return (f"{self.consumer_uuid} {self.provider_uuid} {self.resource_class}: "
                f"{self.amount_before} -> {self.amount_after}")


class UsageSnapshot(models.Model):
    """Capacity and usage of one resource class at one time, cloud-wide or per aggregate.

    ``aggregate_uuid`` is empty for the whole cloud.  ``capacity`` is what
    can be allocated: sum of (total - reserved) * allocation_ratio.
    """

    taken_at = models.DateTimeField(db_index=True)
    resource_class = models.CharField(max_length=255)
    aggregate_uuid = models.CharField(max_length=36, blank=True, default="")
    capacity = models.BigIntegerField()
    used = models.BigIntegerField()

    class Meta:
        db_table = "usage_snapshots"
        ordering = ["taken_at", "id"]
        indexes = [models.Index(fields=["aggregate_uuid", "resource_class", "taken_at"])]


class JobLock(models.Model):
    """One row per maintenance job that must not run twice at once (``usage_snapshot``).

    A run takes ``SELECT ... FOR UPDATE`` on its row and stamps it, inside
    its transaction: a second run waits for the first to commit (PostgreSQL,
    MariaDB; on Galera the stamp makes the later commit fail certification;
    SQLite's ``BEGIN IMMEDIATE`` already serialises writers).
    """

    name = models.CharField(max_length=64, primary_key=True)
    taken_at = models.DateTimeField(null=True)

    class Meta:
        db_table = "job_locks"
