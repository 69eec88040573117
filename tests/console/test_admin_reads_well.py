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


def test_inline_rows_read_as_what_they_are(admin_client_):
    """The provider page's trait and aggregate rows are named by the trait
    and the aggregate, not "ProviderTrait object (...)"."""
    from providers.models import ProviderAggregate
    from tests.factories import AggregateFactory

    rp = ResourceProviderFactory(name="cn1")
    ProviderTrait.objects.create(resource_provider=rp, trait=trait("HW_CPU_X86_AVX"))
    agg = AggregateFactory()
    ProviderAggregate.objects.create(resource_provider=rp, aggregate=agg)
    html = admin_client_.get(f"/admin/providers/resourceprovider/{rp.pk}/change/").content.decode()
    assert "object (" not in html
    originals = [cell.split("</p>")[0] for cell in html.split('<td class="original">')[1:]]
    text = " ".join(" ".join(o.replace("<p>", "").split()) for o in originals)
    assert "HW_CPU_X86_AVX" in text and agg.uuid in text


def test_placement_users_are_not_confused_with_accounts(admin_client_):
    """Two "Users" on the index: Placement's (the users consumers belong
    to) gets a name of its own; Django's accounts keep theirs."""
    html = admin_client_.get("/admin/").content.decode()
    placement = html.split('href="/admin/allocations/user/">')[1].split("<")[0]
    accounts = html.split('href="/admin/auth/user/">')[1].split("<")[0]
    assert accounts == "Users"
    assert placement != accounts and "Placement" in placement


def test_provider_list_names_parent_and_root_without_their_uuids(admin_client_):
    """A child's row names its parent and root (their uuids on hover), so
    that the list fits the page: one uuid per row, not three."""
    from django.utils.html import strip_tags

    root = ResourceProviderFactory(name="cn1")
    child = ResourceProviderFactory(name="cn1-numa0", parent=root)
    grandchild = ResourceProviderFactory(name="cn1-numa0-vgpu", parent=child)
    html = admin_client_.get("/admin/providers/resourceprovider/").content.decode()
    row = html.split(f">{child.name}</a>")[1].split("</tr>")[0]
    assert f">{root.name}<" in row  # the parent by name
    text = strip_tags(row)
    assert root.uuid not in text and child.uuid not in text  # uuids on hover
    assert f'title="{root.uuid}"' in row and f'title="{child.uuid}"' in row
    # A grandchild names its parent and its root.
    row = html.split(f">{grandchild.name}</a>")[1].split("</tr>")[0]
    assert f">{child.name}<" in row and f">{root.name}<" in row
