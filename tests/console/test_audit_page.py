"""The console's Audit page: the findings of `manage.py audit_allocations`
(the same functions, so the same rows), and its two safe fixes behind a
confirmation, recorded in the allocation history."""
import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from allocations.models import Allocation, Consumer
from operations import history
from providers.models import ProviderTrait
from tests import factories as f
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db


def _host(name, total=16):
    rp = f.ResourceProviderFactory(name=name)
    f.InventoryFactory(resource_provider=rp, total=total)
    return rp


@pytest.fixture
def leaks():
    """One of each finding."""
    src, dst = _host("src-host"), _host("dst-host")
    numa = f.ResourceProviderFactory(name="dst-host-numa0", parent=dst)
    f.InventoryFactory(resource_provider=numa, total=8)
    migration = f.ConsumerTypeFactory(name="MIGRATION")
    spanning = f.ConsumerFactory(consumer_type=f.ConsumerTypeFactory(name="INSTANCE"))
    f.AllocationFactory(consumer=spanning, resource_provider=src, used=2)
    f.AllocationFactory(consumer=spanning, resource_provider=numa, used=2)
    old = f.ConsumerFactory(consumer_type=migration)
    f.AllocationFactory(consumer=old, resource_provider=src, used=1)
    Consumer.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(hours=30))
    orphan = f.ConsumerFactory(generation=2)
    f.AllocationFactory(consumer=orphan, resource_provider=dst, used=1)
    f.AllocationFactory(consumer=orphan, resource_provider=dst,
                        resource_class=f.resource_class("DISK_GB"), used=40)
    off = _host("off-host")
    ProviderTrait.objects.create(resource_provider=off, trait=f.trait("COMPUTE_STATUS_DISABLED"))
    f.AllocationFactory(resource_provider=off, used=3)
    empty = f.ConsumerFactory()
    return {"spanning": spanning, "old": old, "orphan": orphan, "empty": empty, "dst": dst,
            "off": off}


def _command_findings():
    code, out = run("audit_allocations", "--json")
    return json.loads(out)["findings"]


def test_page_shows_what_the_command_finds(staff, leaks):
    found = _command_findings()
    html = staff.get("/console/audit/").content.decode()
    summary = html.split('id="audit-summary"', 1)[1].split("</table>", 1)[0]
    for key, rows in found.items():
        assert f'href="#{key}"' in summary, key
    # Each count as the command counts it.
    for title, key in (("Consumers without allocations", "consumers_without_allocations"),
                       ("Allocations without inventory", "allocations_without_inventory"),
                       ("Consumers spanning more than one tree", "consumers_spanning_trees"),
                       ("COMPUTE_STATUS_DISABLED providers holding consumers",
                        "disabled_providers_with_consumers")):
        assert f'{title}</a></td><td class="num">{len(found[key])}</td>' in summary, key
    assert len(found["stale_migrations"]) == 1
    assert 'older than 24 h</a></td><td class="num">1</td>' in summary
    # Names, not uuids: providers by name, consumers by kind, each a link.
    spanning = html.split('id="finding-consumers_spanning_trees"', 1)[1].split("</table>")[0]
    assert ">dst-host</a>, <a" in spanning and ">src-host</a>" in spanning
    assert f'href="/console/consumers/{leaks["spanning"].uuid}/"' in spanning
    assert "instance <span" in spanning
    stale = html.split('id="finding-stale_migrations"', 1)[1].split("</table>")[0]
    assert 'class="tag migration"' in stale
    disabled = html.split('id="finding-disabled_providers_with_consumers"', 1)[1]
    assert ">off-host</a>" in disabled.split("</table>")[0]


def test_migration_age_is_a_parameter_and_checked(staff, leaks):
    html = staff.get("/console/audit/", {"migration_age_hours": "48"}).content.decode()
    assert 'older than 48 h</a></td><td class="num">0</td>' in html
    resp = staff.get("/console/audit/", {"migration_age_hours": "soon"})
    assert resp.status_code == 200
    assert "Migration age must be a number of hours" in resp.content.decode()


def test_fix_asks_for_confirmation_first_and_changes_nothing_until_posted(staff, leaks):
    before = Allocation.objects.count(), Consumer.objects.count()
    html = staff.get("/console/audit/", {"confirm": "allocations_without_inventory"}).content
    html = html.decode()
    assert 'id="confirm"' in html and "Yes, fix them" in html
    assert f'name="consumer" value="{leaks["orphan"].uuid}"' in html
    assert (Allocation.objects.count(), Consumer.objects.count()) == before
    # A finding a person must settle has no fix to confirm.
    html = staff.get("/console/audit/", {"confirm": "consumers_spanning_trees"}).content.decode()
    assert 'id="confirm"' not in html and "needs a person" in html


def test_dropping_allocations_without_inventory_is_recorded_in_the_history(staff, leaks):
    orphan = leaks["orphan"]
    resp = staff.post("/console/audit/", {"fix": "allocations_without_inventory",
                                          "consumer": [orphan.uuid]})
    assert resp.status_code == 302
    assert [(a.resource_class.name, a.used) for a in Allocation.objects.filter(
        consumer=orphan)] == [("VCPU", 1)]
    orphan.refresh_from_db()
    assert orphan.generation == 3
    changes = [(c.resource_class, c.amount_before, c.amount_after, c.source, c.user_id)
               for c in history.changes_for(consumer=orphan.uuid)]
    assert changes == [("DISK_GB", 40, 0, "console_audit", "op")]
    html = staff.get(resp.url).content.decode()
    assert "Rewrote 1 consumer(s)" in html
    assert _command_findings()["allocations_without_inventory"] == []
    # The consumer's page shows the change, the provider by name.
    page = staff.get(f"/console/consumers/{orphan.uuid}/").content.decode()
    assert "(console_audit)" in page and ">dst-host</a>" in page.split('id="history"')[1]


def test_deleting_empty_consumers_only_touches_the_confirmed_ones(staff, leaks):
    other = f.ConsumerFactory()  # empty too, but not on the confirmed list
    resp = staff.post("/console/audit/", {"fix": "consumers_without_allocations",
                                          "consumer": [leaks["empty"].uuid,
                                                       leaks["spanning"].uuid]})
    assert resp.status_code == 302 and "fixed=1" in resp.url
    assert not Consumer.objects.filter(pk=leaks["empty"].pk).exists()
    assert Consumer.objects.filter(pk=other.pk).exists()
    assert Consumer.objects.filter(pk=leaks["spanning"].pk).exists()  # not empty: kept


def test_deleting_an_empty_consumer_is_recorded_in_the_history(staff, leaks):
    empty = leaks["empty"]
    Consumer.objects.filter(pk=empty.pk).update(generation=3)
    staff.post("/console/audit/", {"fix": "consumers_without_allocations",
                                   "consumer": [empty.uuid, leaks["spanning"].uuid]})
    rows = [history.as_dict(c) for c in history.changes_for(consumer=empty.uuid)]
    assert [(r["event"], r["source"], r["user_id"], r["consumer_generation"],
             r["provider_uuid"], r["amount_before"], r["amount_after"]) for r in rows] == [
        ("consumer_deleted", "console_audit", "op", 3, "", 0, 0)]
    # The kept, non-empty consumer gets no such row.
    assert not history.changes_for(consumer=leaks["spanning"].uuid).filter(
        event="consumer_deleted").exists()
    # The gone consumer's page is a 404; its record is in the API's history.
    api = staff.get(f"/history/consumers/{empty.uuid}", HTTP_X_AUTH_TOKEN="admin")
    assert [c["event"] for c in api.json()["changes"]] == ["consumer_deleted"]


def test_fixes_need_a_post_with_csrf_and_a_known_fix(staff, leaks):
    assert staff.post("/console/audit/", {"fix": "consumers_spanning_trees"}).status_code == 404
    assert staff.post("/console/audit/", {"fix": "nope"}).status_code == 404
    from django.contrib.auth import get_user_model

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(get_user_model().objects.get(username="op"))
    resp = strict.post("/console/audit/", {"fix": "consumers_without_allocations",
                                           "consumer": [leaks["empty"].uuid]})
    assert resp.status_code == 403
    assert Consumer.objects.filter(pk=leaks["empty"].pk).exists()


def test_the_audit_needs_a_staff_login(leaks):
    resp = Client().post("/console/audit/", {"fix": "consumers_without_allocations",
                                             "consumer": [leaks["empty"].uuid]})
    assert resp.status_code == 302 and "/console/login/" in resp.url
    assert Consumer.objects.filter(pk=leaks["empty"].pk).exists()


def test_clean_cloud_says_fine(staff):
    f.AllocationFactory(resource_provider=_host("h1"), used=2)
    html = staff.get("/console/audit/").content.decode()
    assert html.count('<span class="ok">fine</span>') == 8


def test_a_gone_consumers_page_shows_its_history(staff, leaks):
    empty = leaks["empty"]
    staff.post("/console/audit/", {"fix": "consumers_without_allocations",
                                   "consumer": [empty.uuid]})
    page = staff.get(f"/console/consumers/{empty.uuid}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="gone"' in html and "consumer deleted: it held no allocations" in html
    assert "(console_audit)" in html
    csv = b"".join(staff.get(f"/console/consumers/{empty.uuid}/",
                             {"format": "csv", "table": "history"}).streaming_content).decode()
    assert csv.splitlines()[0].endswith(",owner_change,event")
    assert csv.splitlines()[1].endswith(",consumer_deleted")
    assert staff.get(f"/console/consumers/{empty.uuid}/",
                     {"format": "csv", "table": "allocations"}).status_code == 404
    # A uuid nothing ever recorded is still a 404.
    assert staff.get("/console/consumers/00000000-0000-0000-0000-000000000000/"
                     ).status_code == 404


def test_with_history_off_a_deleted_consumer_leaves_nothing(staff, leaks, settings):
    settings.PLACEMENT_ALLOCATION_HISTORY = False
    empty = leaks["empty"]
    staff.post("/console/audit/", {"fix": "consumers_without_allocations",
                                   "consumer": [empty.uuid]})
    assert not Consumer.objects.filter(pk=empty.pk).exists()
    assert not history.changes_for(consumer=empty.uuid).exists()
    assert staff.get(f"/console/consumers/{empty.uuid}/").status_code == 404


def test_the_command_prints_a_deleted_consumer_line(leaks):
    run("audit_allocations", "--fix")
    code, out = run("allocation_history", "--consumer", leaks["empty"].uuid)
    assert code == 0
    header, row = out.splitlines()
    assert header.split()[:4] == ["time", "(UTC)", "consumer", "provider"]
    assert row.split()[2:] == [leaks["empty"].uuid[:8], "-", "(consumer", "deleted)", "-", "-",
                               row.split()[8], "audit_allocations"]
