"""Resource providers, their inventories, aggregates and traits."""
from django.db import models
from django.db.models import ExpressionWrapper, F, FloatField

from placement_core.shared_schema import UTCDateTimeField
from resource_classes.models import ResourceClass, Trait

# The tables are upstream's (placement_core.shared_schema): upstream's column
# names, integer keys, nullable naive-UTC timestamps, and foreign keys only
# where upstream declares them (db_constraint=False elsewhere).


class Aggregate(models.Model):
    id = models.AutoField(primary_key=True)
    uuid = models.CharField(max_length=36, unique=True)
    created_at = UTCDateTimeField(auto_now_add=True, null=True)
    updated_at = UTCDateTimeField(auto_now=True, null=True)

    class Meta:
        db_table = "placement_aggregates"

    def __str__(self):
        return self.uuid


class ResourceProvider(models.Model):
    id = models.AutoField(primary_key=True)
    uuid = models.CharField(max_length=36, unique=True)
    name = models.CharField(max_length=200, unique=True)
    generation = models.IntegerField(default=0)
    # The tree: parent is null for a root; root points at itself for a root.
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children",
        db_column="parent_provider_id",
    )
    # DO_NOTHING: a root refers to itself; the services keep trees consistent.
    root = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.DO_NOTHING, related_name="tree_members",
        db_column="root_provider_id",
    )
    aggregates = models.ManyToManyField(
        Aggregate, through="ProviderAggregate", related_name="resource_providers", blank=True
    )
    traits = models.ManyToManyField(
        Trait, through="ProviderTrait", related_name="resource_providers", blank=True
    )
    created_at = UTCDateTimeField(auto_now_add=True, null=True)
    updated_at = UTCDateTimeField(auto_now=True, null=True)

    class Meta:
        db_table = "resource_providers"
        ordering = ["id"]

    def __str__(self):
        return f"{self.name} ({self.uuid})"


class Inventory(models.Model):
    id = models.AutoField(primary_key=True)
    resource_provider = models.ForeignKey(
        ResourceProvider, on_delete=models.CASCADE, related_name="inventories",
        db_constraint=False,
    )
    resource_class = models.ForeignKey(
        ResourceClass, on_delete=models.PROTECT, related_name="inventories", db_constraint=False,
    )
    total = models.IntegerField()
    reserved = models.IntegerField(default=0)
    min_unit = models.IntegerField(default=1)
    max_unit = models.IntegerField()
    step_size = models.IntegerField(default=1)
    allocation_ratio = models.FloatField(default=1.0)
    created_at = UTCDateTimeField(auto_now_add=True, null=True)
    updated_at = UTCDateTimeField(auto_now=True, null=True)

    class Meta:
        verbose_name_plural = "inventories"
        db_table = "inventories"
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["resource_provider", "resource_class"],
                name="uniq_inventories0resource_provider_resource_class",
            )
        ]

    def __str__(self):
        return f"{self.resource_class.name} on {self.resource_provider.name}"

    # The capacity rule lives here, in the functions below the class and in
    # their two SQL spellings; every reader and writer (the API, the
    # candidate engine, the console, the audits) uses one of them.
    @property
    def capacity(self):
        """What can be allocated in all: (total - reserved) * allocation_ratio."""
        return capacity_of(self.total, self.reserved, self.allocation_ratio)

    def unit_ok(self, amount: int) -> bool:
        """One allocation of ``amount`` respects min_unit, max_unit and step_size."""
        return unit_ok(amount, self.min_unit, self.max_unit, self.step_size)

    def fits(self, amount: int, used: int) -> bool:
        """One more allocation of ``amount`` fits beside ``used``."""
        return self.unit_ok(amount) and used + amount <= self.capacity


def capacity_of(total: int, reserved: int, allocation_ratio: float) -> int:
    return int((total - reserved) * allocation_ratio)


def unit_ok(amount: int, min_unit: int, max_unit: int, step_size: int) -> bool:
    return min_unit <= amount <= max_unit and (not step_size or amount % step_size == 0)


def capacity_expression():
    """``Inventory.capacity`` as an ORM expression (a float, like the SQL below)."""
    return ExpressionWrapper(
        (F("total") - F("reserved")) * F("allocation_ratio"), output_field=FloatField()
    )


def capacity_sql(alias: str) -> str:
    """``Inventory.capacity`` in the raw SQL of the candidate engine, for the
    inventories table under ``alias``."""
    return f"({alias}.total - {alias}.reserved) * {alias}.allocation_ratio"


class ProviderAggregate(models.Model):
    pk = models.CompositePrimaryKey("resource_provider_id", "aggregate_id")
    resource_provider = models.ForeignKey(
        ResourceProvider, on_delete=models.CASCADE, db_constraint=False)
    aggregate = models.ForeignKey(Aggregate, on_delete=models.CASCADE, db_constraint=False)
    created_at = UTCDateTimeField(auto_now_add=True, null=True)
    updated_at = UTCDateTimeField(auto_now=True, null=True)

    class Meta:
        db_table = "resource_provider_aggregates"

    def __str__(self):
        # How the admin's aggregate rows read (not "ProviderAggregate object").
        return f"{self.resource_provider.name} in aggregate {self.aggregate.uuid}"


class ProviderTrait(models.Model):
    pk = models.CompositePrimaryKey("trait_id", "resource_provider_id")
    trait = models.ForeignKey(Trait, on_delete=models.PROTECT)
    resource_provider = models.ForeignKey(ResourceProvider, on_delete=models.CASCADE)
    created_at = UTCDateTimeField(auto_now_add=True, null=True)
    updated_at = UTCDateTimeField(auto_now=True, null=True)

    class Meta:
        db_table = "resource_provider_traits"

    def __str__(self):
        return f"{self.trait.name} on {self.resource_provider.name}"
