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
        # Beside Django's own accounts ("Users") in the admin: these are the
        # OpenStack users consumers belong to, not people who log in here.
        verbose_name = "Placement user"
        verbose_name_plural = "Placement users (consumers' owners, not logins)"

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
