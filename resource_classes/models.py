"""Resource classes and traits: the two catalogs.

Standard names come from os-resource-classes and os-traits and are synced
into these tables on every migrate (resource_classes.services.catalog_sync);
operators add their own with the ``CUSTOM_`` prefix.
"""
from django.db import models

CUSTOM_PREFIX = "CUSTOM_"


class ResourceClass(models.Model):
    name = models.CharField(max_length=255, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

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
    name = models.CharField(max_length=255, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "traits"
        ordering = ["id"]

    def __str__(self):
        return self.name

    @property
    def is_custom(self):
        return self.name.startswith(CUSTOM_PREFIX)
