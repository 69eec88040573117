"""The Django admin reads well: plural labels, and providers found by a
trait through the search box (not a sidebar listing every trait)."""
import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from providers.models import ProviderTrait
from tests.factories import ResourceProviderFactory, trait

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_():
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", password="pw"))
    return client


def test_plural_labels(admin_client_):
    html = admin_client_.get("/admin/").content.decode()
    assert "Resource classes" in html and "Inventories" in html
    assert "classs" not in html and "Inventorys" not in html


def test_providers_are_found_by_trait_in_the_search(admin_client_):
    gold = ResourceProviderFactory(name="gold-host")
    ResourceProviderFactory(name="plain-host")
    ProviderTrait.objects.create(resource_provider=gold, trait=trait("CUSTOM_GOLD"))
    for i in range(30):
        trait(f"CUSTOM_T{i}")
    html = admin_client_.get("/admin/providers/resourceprovider/", {"q": "CUSTOM_GOLD"}
                             ).content.decode()
    assert "gold-host" in html and "plain-host" not in html
    assert "CUSTOM_T29" not in html  # no sidebar of every trait


def test_inventories_are_searched_by_class_without_a_class_sidebar(admin_client_):
    from tests.factories import InventoryFactory, resource_class

    rp = ResourceProviderFactory(name="host")
    InventoryFactory(resource_provider=rp, resource_class=resource_class("VCPU"), total=8)
    InventoryFactory(resource_provider=rp, resource_class=resource_class("DISK_GB"), total=80)
    html = admin_client_.get("/admin/providers/inventory/", {"q": "DISK_GB"}).content.decode()
    assert "1 inventory" in html or ">1 result<" in html or "1 result" in html
    assert "NUMA_SOCKET" not in html  # no sidebar of every class
    for url in ("/admin/allocations/allocation/", "/admin/operations/allocationchange/",
                "/admin/operations/usagesnapshot/"):
        assert admin_client_.get(url, {"q": "VCPU"}).status_code == 200
