"""factory-boy factories for every model; use them instead of raw ORM setup."""
import uuid

import factory
from factory.django import DjangoModelFactory

from allocations.models import Allocation, Consumer, ConsumerType, Project, User
from planning.models import Flavor
from providers.models import (
    Aggregate, Inventory, ProviderAggregate, ProviderTrait, ResourceProvider,
)
from resource_classes import services as resource_class_services
from resource_classes.models import ResourceClass, Trait


def resource_class(name):
    """The ResourceClass row for ``name`` (standard ones exist after migrate)."""
    found = ResourceClass.objects.filter(name=name).first()
    return found if found is not None else resource_class_services.class_insert(name)


def trait(name):
    return Trait.objects.get_or_create(name=name)[0]


class ResourceClassFactory(DjangoModelFactory):
    class Meta:
        model = ResourceClass
        django_get_or_create = ("name",)

    # Upstream's numbering puts custom classes from 10000; these start far above.
    id = factory.Sequence(lambda n: 50000 + n)
    name = factory.Sequence(lambda n: f"CUSTOM_RC_{n}")


class TraitFactory(DjangoModelFactory):
    class Meta:
        model = Trait
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"CUSTOM_TRAIT_{n}")


class AggregateFactory(DjangoModelFactory):
    class Meta:
        model = Aggregate

    uuid = factory.LazyFunction(lambda: str(uuid.uuid4()))


class ResourceProviderFactory(DjangoModelFactory):
    """A provider; a root unless ``parent`` is given (root follows the parent)."""

    class Meta:
        model = ResourceProvider
        skip_postgeneration_save = True

    uuid = factory.LazyFunction(lambda: str(uuid.uuid4()))
    name = factory.Sequence(lambda n: f"rp-{n}")
    parent = None

    @factory.post_generation
    def _tree(obj, create, extracted, **kwargs):
        root_id = obj.parent.root_id if obj.parent_id else obj.pk
        if obj.root_id != root_id:
            obj.root_id = root_id
            if create:
                ResourceProvider.objects.filter(pk=obj.pk).update(root_id=root_id)


class InventoryFactory(DjangoModelFactory):
    class Meta:
        model = Inventory

    resource_provider = factory.SubFactory(ResourceProviderFactory)
    resource_class = factory.LazyFunction(lambda: resource_class("VCPU"))
    total = 8
    reserved = 0
    min_unit = 1
    max_unit = factory.LazyAttribute(lambda o: o.total)
    step_size = 1
    allocation_ratio = 1.0


class ProviderTraitFactory(DjangoModelFactory):
    class Meta:
        model = ProviderTrait

    resource_provider = factory.SubFactory(ResourceProviderFactory)
    trait = factory.SubFactory(TraitFactory)


class ProviderAggregateFactory(DjangoModelFactory):
    class Meta:
        model = ProviderAggregate

    resource_provider = factory.SubFactory(ResourceProviderFactory)
    aggregate = factory.SubFactory(AggregateFactory)


class ProjectFactory(DjangoModelFactory):
    class Meta:
        model = Project
        django_get_or_create = ("external_id",)

    external_id = factory.LazyFunction(lambda: str(uuid.uuid4()))


class UserFactory(DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("external_id",)

    external_id = factory.LazyFunction(lambda: str(uuid.uuid4()))


class ConsumerTypeFactory(DjangoModelFactory):
    class Meta:
        model = ConsumerType
        django_get_or_create = ("name",)

    name = "INSTANCE"


class ConsumerFactory(DjangoModelFactory):
    class Meta:
        model = Consumer

    uuid = factory.LazyFunction(lambda: str(uuid.uuid4()))
    project = factory.SubFactory(ProjectFactory)
    user = factory.SubFactory(UserFactory)
    generation = 1


class AllocationFactory(DjangoModelFactory):
    class Meta:
        model = Allocation

    resource_provider = factory.SubFactory(ResourceProviderFactory)
    consumer = factory.SubFactory(ConsumerFactory)
    resource_class = factory.LazyFunction(lambda: resource_class("VCPU"))
    used = 1


class FlavorFactory(DjangoModelFactory):
    """A stored flavor (headroom); ``resources`` as the service writes it."""

    class Meta:
        model = Flavor
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"flavor-{n}")
    resources = "VCPU:1"
