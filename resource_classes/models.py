"""Resource classes and traits: the two catalogs.

Standard names come from os-resource-classes and os-traits and are synced
into these tables on every migrate (resource_classes.services.catalog_sync);
operators add their own with the ``CUSTOM_`` prefix.
"""
from django.db import models

from placement_core.shared_schema import UTCDateTimeField

CUSTOM_PREFIX = "CUSTOM_"


class ResourceClass(models.Model):
    id = models.AutoField(primary_key=True)
    name = models.CharField(max_length=255, unique=True)
    created_at = UTCDateTimeField(auto_now_add=True, null=True)
    updated_at = UTCDateTimeField(auto_now=True, null=True)

    class Meta:
        db_table = "resource_classes"
        verbose_name_plural = "resource classes"
        ordering = ["id"]

    def __str__(self):
        return self.name

    @property
    def is_custom(self):
        return self.name.startswith(CUSTOM_PREFIX)


class Trait(models.Model):
    id = models.AutoField(primary_key=True)
    name = models.CharField(max_length=255, unique=True)
    created_at = UTCDateTimeField(auto_now_add=True, null=True)
    updated_at = UTCDateTimeField(auto_now=True, null=True)

    class Meta:
        db_table = "traits"
        ordering = ["id"]

    def __str__(self):
        return self.name

    @property
    def is_custom(self):
        return self.name.startswith(CUSTOM_PREFIX)
