import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client

from allocations.models import Allocation
from providers.models import Inventory, ResourceProvider
from resource_classes.models import ResourceClass, Trait
from tests import factories as f

pytestmark = pytest.mark.django_db


@pytest.fixture
def su():
    user = get_user_model().objects.create_superuser("root", password="pw")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def data():
    inv = f.InventoryFactory(total=8)
    inv.resource_provider.traits.add(f.trait("HW_CPU_X86_AVX"))
    inv.resource_provider.aggregates.add(f.AggregateFactory())
    alloc = f.AllocationFactory(resource_provider=inv.resource_provider, used=2)
    return inv.resource_provider, alloc.consumer


def test_every_model_is_registered():
    from django.apps import apps

    for app in ("resource_classes", "providers", "allocations", "operations"):
        for model in apps.get_app_config(app).get_models():
            if model._meta.pk.__class__.__name__ == "CompositePrimaryKey":
                # Django's admin takes none; they are edited on their provider's page.
                assert not admin.site.is_registered(model), model
                continue
            assert admin.site.is_registered(model), model
    assert admin.site.is_registered(apps.get_model("planning", "Flavor"))


def test_changelists_and_detail_pages(su, data):
    rp, consumer = data
    for model in admin.site._registry:
        if model._meta.app_label in ("resource_classes", "providers", "allocations",
                                     "operations", "planning"):
            url = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
            assert su.get(url).status_code == 200, url
            assert su.get(url + "?q=x").status_code == 200, url
    html = su.get(f"/admin/providers/resourceprovider/{rp.pk}/change/").content.decode()
    assert "HW_CPU_X86_AVX" in html and "VCPU" in html and rp.uuid in html
    html = su.get(f"/admin/allocations/consumer/{consumer.pk}/change/").content.decode()
    assert rp.name in html and consumer.uuid in html


def test_placement_data_is_read_only(su, data):
    # Providers and their inventories, traits and aggregates are written
    # through the services (tests/console/test_admin_writes.py); the rest stays read-only.
    rp, consumer = data
    alloc = Allocation.objects.filter(consumer=consumer).first()
    inv = Inventory.objects.get(resource_provider=rp)
    assert su.get("/admin/allocations/allocation/add/").status_code == 403
    assert su.get("/admin/providers/inventory/add/").status_code == 403
    resp = su.post(f"/admin/allocations/allocation/{alloc.pk}/change/", {"used": 1})
    assert resp.status_code == 403
    resp = su.post(f"/admin/providers/inventory/{inv.pk}/change/", {"total": 1})
    assert resp.status_code == 403
    assert su.post(f"/admin/allocations/consumer/{consumer.pk}/delete/", {"post": "yes"}).status_code == 403
    assert ResourceProvider.objects.filter(pk=rp.pk, name=rp.name).exists()
    assert Allocation.objects.filter(consumer=consumer).exists()


def test_custom_classes_and_traits_through_services(su, data):
    resp = su.post("/admin/resource_classes/resourceclass/add/", {"name": "CUSTOM_ADMIN"})
    assert resp.status_code == 302
    assert ResourceClass.objects.filter(name="CUSTOM_ADMIN").exists()
    resp = su.post("/admin/resource_classes/resourceclass/add/", {"name": "lower"})
    assert resp.status_code == 200 and not ResourceClass.objects.filter(name="lower").exists()
    assert su.post("/admin/resource_classes/trait/add/", {"name": "CUSTOM_T"}).status_code == 302
    assert Trait.objects.filter(name="CUSTOM_T").exists()
    vcpu = ResourceClass.objects.get(name="VCPU")
    assert su.post(f"/admin/resource_classes/resourceclass/{vcpu.pk}/delete/",
                   {"post": "yes"}).status_code == 403
    gold = f.ResourceClassFactory(name="CUSTOM_GOLD")
    f.InventoryFactory(resource_class=gold)
    su.post(f"/admin/resource_classes/resourceclass/{gold.pk}/delete/", {"post": "yes"})
    assert ResourceClass.objects.filter(pk=gold.pk).exists()  # in use: refused by the service
    adm = ResourceClass.objects.get(name="CUSTOM_ADMIN")
    su.post(f"/admin/resource_classes/resourceclass/{adm.pk}/delete/", {"post": "yes"})
    assert not ResourceClass.objects.filter(pk=adm.pk).exists()
