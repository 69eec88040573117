"""Consumers and the allocations they hold against providers."""
from django.db import models

from providers.models import ResourceProvider
from resource_classes.models import ResourceClass


class Project(models.Model):
    external_id = models.CharField(max_length=255, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "projects"

    def __str__(self):
        return self.external_id


class User(models.Model):
    external_id = models.CharField(max_length=255, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "users"

    def __str__(self):
        return self.external_id


class ConsumerType(models.Model):
    name = models.CharField(max_length=255, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "consumer_types"

    def __str__(self):
        return self.name


class Consumer(models.Model):
    uuid = models.CharField(max_length=36, unique=True)
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="consumers")
    user = models.ForeignKey(User, on_delete=models.PROTECT, related_name="consumers")
    consumer_type = models.ForeignKey(
        ConsumerType, null=True, blank=True, on_delete=models.PROTECT, related_name="consumers"
    )
    generation = models.IntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "consumers"
        ordering = ["id"]
        indexes = [models.Index(fields=["project", "user"])]

    def __str__(self):
        return self.uuid


class Allocation(models.Model):
    resource_provider = models.ForeignKey(
        ResourceProvider, on_delete=models.PROTECT, related_name="allocations"
    )
    consumer = models.ForeignKey(Consumer, on_delete=models.CASCADE, related_name="allocations")
    resource_class = models.ForeignKey(
        ResourceClass, on_delete=models.PROTECT, related_name="allocations"
    )
    used = models.IntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "allocations"
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["consumer", "resource_provider", "resource_class"],
                name="uniq_allocation_consumer_rp_rc",
            )
        ]
        indexes = [models.Index(fields=["resource_provider", "resource_class"])]

    def __str__(self):
        return f"{self.consumer.uuid}: {self.used} {self.resource_class.name}"
