"""Admin writes on providers go through the services, and refusals change nothing."""
import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from providers import inventory_services, services
from providers.models import Inventory, ProviderAggregate, ProviderTrait, ResourceProvider
from tests import factories as f

pytestmark = pytest.mark.django_db

AGG = "5a1b9b2e-3c6f-4a36-9f0e-2f3f5a7b8c9d"


@pytest.fixture
def su():
    user = get_user_model().objects.create_superuser("root", password="pw")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def calls(monkeypatch):
    """Records every call the admin makes to the provider and inventory services."""
    seen = []
    for module, names in (
        (services, ("provider_create", "provider_update", "provider_delete",
                    "provider_traits_set", "provider_aggregates_set")),
        (inventory_services, ("inventory_create", "inventory_update", "inventory_delete")),
    ):
        for name in names:
            real = getattr(module, name)

            def spy(*args, _real=real, _name=name, **kwargs):
                seen.append(_name)
                return _real(*args, **kwargs)

            monkeypatch.setattr(module, name, spy)
    return seen


@pytest.fixture
def rp():
    provider = f.ResourceProviderFactory(name="cn1")
    f.InventoryFactory(resource_provider=provider, resource_class=f.resource_class("VCPU"),
                       total=8, max_unit=8)
    f.InventoryFactory(resource_provider=provider, resource_class=f.resource_class("MEMORY_MB"),
                       total=1024, max_unit=1024)
    return provider


ADD_URL = "/admin/providers/resourceprovider/add/"


def add_data(client, **fields):
    data = page_data(client, ADD_URL)
    data.update(fields)
    return data


def change_url(provider):
    return f"/admin/providers/resourceprovider/{provider.pk}/change/"


def page_data(client, url):
    """The POST body the change page would send back unchanged."""
    resp = client.get(url)
    assert resp.status_code == 200
    data = {}
    form = resp.context["adminform"].form
    for name in form.fields:
        value = form[name].value()
        if value is not None:
            data[form.add_prefix(name)] = value
    for inline in resp.context["inline_admin_formsets"]:
        formset = inline.formset
        management = formset.management_form
        for name in management.fields:
            data[management.add_prefix(name)] = management[name].value()
        for form in formset.forms:
            for name in form.fields:
                value = form[name].value()
                if value is not None and value is not False:
                    data[form.add_prefix(name)] = value
    return data


def prefix_of(data, suffix):
    """The formset prefix whose management form ends in ``suffix``-TOTAL_FORMS."""
    return next(key[: -len("-TOTAL_FORMS")] for key in data
                if key.endswith("-TOTAL_FORMS") and suffix in key)


def add_row(data, prefix, **fields):
    index = int(data[f"{prefix}-TOTAL_FORMS"])
    data[f"{prefix}-TOTAL_FORMS"] = index + 1
    for name, value in fields.items():
        data[f"{prefix}-{index}-{name}"] = value


def row_index(data, prefix, field, value):
    for key, item in data.items():
        if key.startswith(prefix + "-") and key.endswith("-" + field) and str(item) == str(value):
            return key.split("-")[-2]
    raise AssertionError(f"no {field}={value} row")


def messages_of(resp):
    return [str(m) for m in resp.context["messages"]]


def refusal_of(resp):
    """The errors of a form shown again after the service refused its save."""
    assert resp.status_code == 200 and not resp.redirect_chain
    return [str(e) for e in resp.context["adminform"].form.non_field_errors()]


def snapshot(provider):
    provider.refresh_from_db()
    return (
        provider.name,
        provider.generation,
        sorted(Inventory.objects.filter(resource_provider=provider).values_list(
            "resource_class__name", "total", "reserved", "max_unit")),
        sorted(ProviderTrait.objects.filter(resource_provider=provider).values_list(
            "trait__name", flat=True)),
        sorted(ProviderAggregate.objects.filter(resource_provider=provider).values_list(
            "aggregate__uuid", flat=True)),
    )


# -- providers --------------------------------------------------------------


def test_create_provider_through_the_service(su, calls):
    resp = su.post(ADD_URL, add_data(su, name="made-in-admin", uuid="", parent=""))
    assert resp.status_code == 302, resp.content.decode()[:2000]
    rp = ResourceProvider.objects.get(name="made-in-admin")
    assert calls == ["provider_create"]
    assert len(rp.uuid) == 36 and rp.root_id == rp.pk and rp.generation == 0

    given = "2b9a7c1e-8d4f-4e6a-9b3c-1d2e3f4a5b6c"
    resp = su.post(ADD_URL, add_data(su, name="child", uuid=given.replace("-", "").upper(),
                                     parent=rp.pk))
    assert resp.status_code == 302
    child = ResourceProvider.objects.get(name="child")
    assert child.uuid == given and child.parent_id == rp.pk and child.root_id == rp.pk


def test_create_refusals_write_nothing(su):
    f.ResourceProviderFactory(name="taken")
    before = ResourceProvider.objects.count()
    resp = su.post(ADD_URL, add_data(su, name="taken", uuid=""))
    assert resp.status_code == 200 and "already exists" in resp.content.decode()
    resp = su.post(ADD_URL, add_data(su, name="x", uuid="not-a-uuid"))
    assert resp.status_code == 200 and "Enter a uuid" in resp.content.decode()
    assert ResourceProvider.objects.count() == before


def test_rename_through_the_service(su, rp, calls):
    data = page_data(su, change_url(rp))
    data["name"] = "cn1-renamed"
    resp = su.post(change_url(rp), data)
    assert resp.status_code == 302
    assert calls == ["provider_update"]  # inlines untouched: no inventory writes
    rp.refresh_from_db()
    assert rp.name == "cn1-renamed" and rp.generation == 0  # a rename is not a generation change


def test_delete_refused_while_allocated_or_parent(su, rp, calls):
    f.AllocationFactory(resource_provider=rp, resource_class=f.resource_class("VCPU"), used=2)
    before = snapshot(rp)
    url = f"/admin/providers/resourceprovider/{rp.pk}/delete/"
    assert su.get(url).status_code == 200
    resp = su.post(url, {"post": "yes"}, follow=True)
    assert resp.redirect_chain[-1][0] == change_url(rp)
    assert any("Not deleted" in m and "Resource provider has allocations" in m
               for m in messages_of(resp))
    assert calls == ["provider_delete"] and snapshot(rp) == before

    parent = f.ResourceProviderFactory(name="parent")
    f.ResourceProviderFactory(name="kid", parent=parent)
    resp = su.post(f"/admin/providers/resourceprovider/{parent.pk}/delete/", {"post": "yes"},
                   follow=True)
    assert any("It has child resource providers" in m for m in messages_of(resp))
    assert ResourceProvider.objects.filter(pk=parent.pk).exists()


def test_delete_through_the_service(su, rp, calls):
    rp.traits.add(f.trait("HW_CPU_X86_AVX"))
    url = f"/admin/providers/resourceprovider/{rp.pk}/delete/"
    html = su.get(url).content.decode()
    assert 'type="submit"' in html  # the link rows do not block the confirmation
    resp = su.post(url, {"post": "yes"})
    assert resp.status_code == 302
    assert calls == ["provider_delete"]
    assert not ResourceProvider.objects.filter(pk=rp.pk).exists()
    assert not Inventory.objects.filter(resource_provider_id=rp.pk).exists()


# -- inventories ------------------------------------------------------------


def test_add_inventory_bumps_the_generation(su, rp, calls):
    data = page_data(su, change_url(rp))
    prefix = prefix_of(data, "inventor")
    add_row(data, prefix, resource_provider=rp.pk, resource_class=f.resource_class("DISK_GB").pk,
            total=100, reserved=10, min_unit=1, max_unit=50, step_size=1, allocation_ratio=1.5)
    resp = su.post(change_url(rp), data)
    assert resp.status_code == 302, messages_of(su.get(change_url(rp)))
    assert calls == ["provider_update", "inventory_create"]
    inv = Inventory.objects.get(resource_provider=rp, resource_class__name="DISK_GB")
    assert (inv.total, inv.reserved, inv.max_unit, inv.allocation_ratio) == (100, 10, 50, 1.5)
    rp.refresh_from_db()
    assert rp.generation == 1


def test_change_inventory_bumps_the_generation(su, rp, calls):
    data = page_data(su, change_url(rp))
    prefix = prefix_of(data, "inventor")
    index = row_index(data, prefix, "resource_class", f.resource_class("VCPU").pk)
    data[f"{prefix}-{index}-total"] = 16
    data[f"{prefix}-{index}-max_unit"] = 16
    assert su.post(change_url(rp), data).status_code == 302
    assert "inventory_update" in calls
    assert Inventory.objects.get(resource_provider=rp, resource_class__name="VCPU").total == 16
    rp.refresh_from_db()
    assert rp.generation == 1


def test_invalid_inventory_is_refused_and_nothing_is_written(su, rp, calls):
    before = snapshot(rp)
    data = page_data(su, change_url(rp))
    data["name"] = "should-not-stick"
    prefix = prefix_of(data, "inventor")
    index = row_index(data, prefix, "resource_class", f.resource_class("VCPU").pk)
    data[f"{prefix}-{index}-total"] = 16  # a valid change first...
    data[f"{prefix}-{index}-max_unit"] = 16
    add_row(data, prefix, resource_provider=rp.pk, resource_class=f.resource_class("DISK_GB").pk,
            total=10, reserved=20, min_unit=1, max_unit=10, step_size=1, allocation_ratio=1.0)
    resp = su.post(change_url(rp), data, follow=True)  # ...then reserved > total
    assert "inventory_create" in calls
    assert any(m.startswith("Not saved:") for m in refusal_of(resp)), refusal_of(resp)
    assert snapshot(rp) == before  # the rename and the first change were rolled back too


def test_delete_inventory_in_use_is_refused(su, rp, calls):
    f.AllocationFactory(resource_provider=rp, resource_class=f.resource_class("VCPU"), used=2)
    before = snapshot(rp)
    data = page_data(su, change_url(rp))
    prefix = prefix_of(data, "inventor")
    index = row_index(data, prefix, "resource_class", f.resource_class("VCPU").pk)
    data[f"{prefix}-{index}-DELETE"] = "on"
    resp = su.post(change_url(rp), data, follow=True)
    assert "inventory_delete" in calls
    assert any("Not saved" in m and "in use" in m for m in refusal_of(resp)), refusal_of(resp)
    assert snapshot(rp) == before


def test_delete_inventory_through_the_service(su, rp, calls):
    data = page_data(su, change_url(rp))
    prefix = prefix_of(data, "inventor")
    index = row_index(data, prefix, "resource_class", f.resource_class("MEMORY_MB").pk)
    data[f"{prefix}-{index}-DELETE"] = "on"
    assert su.post(change_url(rp), data).status_code == 302
    assert "inventory_delete" in calls
    assert list(Inventory.objects.filter(resource_provider=rp).values_list(
        "resource_class__name", flat=True)) == ["VCPU"]
    rp.refresh_from_db()
    assert rp.generation == 1


def test_stale_page_is_refused(su, rp, calls):
    data = page_data(su, change_url(rp))  # the page shows generation 0
    # Another writer (the API) changes the provider meanwhile.
    services.provider_traits_set(uuid=rp.uuid, trait_names=["HW_CPU_X86_SSE"], generation=0)
    before = snapshot(rp)
    prefix = prefix_of(data, "inventor")
    index = row_index(data, prefix, "resource_class", f.resource_class("VCPU").pk)
    data[f"{prefix}-{index}-total"] = 4
    data[f"{prefix}-{index}-max_unit"] = 4
    resp = su.post(change_url(rp), data, follow=True)
    assert any("changed while you edited it" in m for m in refusal_of(resp)), refusal_of(resp)
    assert snapshot(rp) == before


# -- traits and aggregates --------------------------------------------------


def test_traits_and_aggregates_through_the_services(su, rp, calls):
    data = page_data(su, change_url(rp))
    add_row(data, prefix_of(data, "trait"), resource_provider=rp.pk,
            trait=f.trait("HW_CPU_X86_AVX").pk)
    add_row(data, prefix_of(data, "aggregate"), resource_provider=rp.pk, aggregate_uuid=AGG)
    resp = su.post(change_url(rp), data)
    assert resp.status_code == 302
    assert "provider_traits_set" in calls and "provider_aggregates_set" in calls
    name, generation, _, traits, aggregates = snapshot(rp)
    assert traits == ["HW_CPU_X86_AVX"] and aggregates == [AGG] and generation == 2

    data = page_data(su, change_url(rp))
    prefix = prefix_of(data, "trait")
    index = row_index(data, prefix, "trait", f.trait("HW_CPU_X86_AVX").pk)
    data[f"{prefix}-{index}-DELETE"] = "on"
    assert su.post(change_url(rp), data).status_code == 302
    assert snapshot(rp)[3] == [] and snapshot(rp)[1] == 3


def test_allocations_say_they_are_read_only(su):
    consumer = f.AllocationFactory().consumer
    for url in ("/admin/allocations/allocation/",
                f"/admin/allocations/consumer/{consumer.pk}/change/"):
        html = su.get(url).content.decode()
        assert "Allocations are read-only in the admin" in html
    assert su.get("/admin/allocations/allocation/add/").status_code == 403


def test_refused_inventory_edit_keeps_what_was_typed(su, rp, calls):
    """A write the service refuses (reserved above total) shows the form
    again with every typed value and the refusal on it, not an empty page."""
    before = snapshot(rp)
    data = page_data(su, change_url(rp))
    data["name"] = "cn1-typed"
    prefix = prefix_of(data, "inventor")
    index = row_index(data, prefix, "resource_class", f.resource_class("VCPU").pk)
    data[f"{prefix}-{index}-total"] = 12
    data[f"{prefix}-{index}-reserved"] = 13
    resp = su.post(change_url(rp), data)
    assert "inventory_update" in calls
    assert resp.status_code == 200  # the form again, not a redirect to a fresh one
    html = resp.content.decode()
    assert f'name="{prefix}-{index}-total" value="12"' in html
    assert f'name="{prefix}-{index}-reserved" value="13"' in html
    assert 'name="name" value="cn1-typed"' in html
    errors = html.split('class="errorlist')[1].split("</ul>")[0]
    assert "Not saved" in errors and "reserved" in errors.lower()
    assert snapshot(rp) == before

    # Sent again corrected, it is saved.
    data[f"{prefix}-{index}-reserved"] = 2
    assert su.post(change_url(rp), data).status_code == 302
    assert Inventory.objects.get(resource_provider=rp, resource_class__name="VCPU").reserved == 2


def test_inventory_pages_warn_that_nova_compute_rewrites_them(su, rp):
    """The provider page's inventory and the inventory list say that
    nova-compute rewrites the inventory of the compute nodes it manages;
    a tree whose root carries a COMPUTE_ trait (as nova-compute reports
    them) is named as one."""
    warning = "nova-compute"
    page = su.get(change_url(rp)).content.decode()
    assert warning in page and "managed by nova-compute" not in page
    assert warning in su.get("/admin/providers/inventory/").content.decode()
    rp.traits.add(f.trait("COMPUTE_NET_VIF_MODEL_VIRTIO"))
    child = f.ResourceProviderFactory(name="cn1-numa0", parent=rp)
    for provider in (rp, child):
        assert "managed by nova-compute" in su.get(change_url(provider)).content.decode()
