"""Consumers and the allocations they hold against providers."""
from django.db import models

from placement_core.shared_schema import UTCDateTimeField
from providers.models import ResourceProvider
from resource_classes.models import ResourceClass


class Project(models.Model):
    id = models.AutoField(primary_key=True)
    external_id = models.CharField(max_length=255, unique=True)
    created_at = UTCDateTimeField(auto_now_add=True, null=True)
    updated_at = UTCDateTimeField(auto_now=True, null=True)

    class Meta:
        db_table = "projects"

    def __str__(self):
        return self.external_id


class User(models.Model):
    id = models.AutoField(primary_key=True)
    external_id = models.CharField(max_length=255, unique=True)
    created_at = UTCDateTimeField(auto_now_add=True, null=True)
    updated_at = UTCDateTimeField(auto_now=True, null=True)

    class Meta:
        db_table = "users"

    def __str__(self):
        return self.external_id


class ConsumerType(models.Model):
    id = models.AutoField(primary_key=True)
    name = models.CharField(max_length=255, unique=True)
    created_at = UTCDateTimeField(auto_now_add=True, null=True)
    updated_at = UTCDateTimeField(auto_now=True, null=True)

    class Meta:
        db_table = "consumer_types"

    def __str__(self):
        return self.name


class Consumer(models.Model):
    id = models.AutoField(primary_key=True)
    uuid = models.CharField(max_length=36, unique=True)
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="consumers",
                                db_constraint=False)
    user = models.ForeignKey(User, on_delete=models.PROTECT, related_name="consumers",
                             db_constraint=False)
    consumer_type = models.ForeignKey(
        ConsumerType, null=True, blank=True, on_delete=models.PROTECT, related_name="consumers"
    )
    generation = models.IntegerField(default=0)
    created_at = UTCDateTimeField(auto_now_add=True, null=True)
    updated_at = UTCDateTimeField(auto_now=True, null=True)

    class Meta:
        db_table = "consumers"
        ordering = ["id"]

    def __str__(self):
        return self.uuid


class Allocation(models.Model):
    """One amount a consumer holds on a provider.  As upstream stores it,
    ``consumer_id`` is the consumer's uuid (so ``allocation.consumer_id`` is
    a uuid string), with no foreign key constraint anywhere."""

    id = models.AutoField(primary_key=True)
    resource_provider = models.ForeignKey(
        ResourceProvider, on_delete=models.PROTECT, related_name="allocations",
        db_constraint=False,
    )
    consumer = models.ForeignKey(
        Consumer, on_delete=models.CASCADE, related_name="allocations", to_field="uuid",
        db_column="consumer_id", db_constraint=False,
    )
    resource_class = models.ForeignKey(
        ResourceClass, on_delete=models.PROTECT, related_name="allocations", db_constraint=False,
    )
    used = models.IntegerField()
    created_at = UTCDateTimeField(auto_now_add=True, null=True)
    updated_at = UTCDateTimeField(auto_now=True, null=True)

    class Meta:
        db_table = "allocations"
        ordering = ["id"]

    def __str__(self):
        return f"{self.consumer.uuid}: {self.used} {self.resource_class.name}"


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


class Flavor(models.Model):
    """A named request shape an operator stored for headroom (the console's
    Flavors page or the admin), beside the ``PLACEMENT_FLAVORS`` setting.

    ``resources`` is the unsuffixed group as the setting writes it
    (``VCPU:4,MEMORY_MB:8192,DISK_GB:80``), checked on the way in by
    ``allocations.flavor_services.flavor_parse``; a name the setting also defines is
    the setting's (``allocations.headroom.flavor_list``).
    """

    name = models.CharField(max_length=255, unique=True)
    resources = models.CharField(max_length=1024)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "flavors"
        ordering = ["name"]

    def __str__(self):
        return self.name


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
