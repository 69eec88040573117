"""docs/console.md's "every list downloads as CSV", now also true of a provider's
consumers and history, a consumer's allocations and history, and the Usage
page: every row (not the page's first 50 or 200), with a link on the page."""
import csv
import io

import pytest
from django.utils import timezone

from allocations.services import allocations_set
from operations import snapshots
from tests.support.claims import PROJECT, USER, new_uuid
from tests.support.world import World

pytestmark = pytest.mark.django_db


def _rows(response):
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


@pytest.fixture
def cloud():
    w = World()
    w.agg = w.aggregate()
    w.cn = w.provider("cn1", inventory={"VCPU": 512, "MEMORY_MB": 65536}, aggs=[w.agg])
    w.consumers = []
    for i in range(210):  # more than the provider page shows (200)
        c = new_uuid()
        allocations_set(consumer_uuid=c, allocations={w.cn.uuid: {"VCPU": 1 + i % 2}},
                        project_id=PROJECT, user_id=USER, consumer_generation=None)
        w.consumers.append(c)
    allocations_set(consumer_uuid=w.consumers[0],
                    allocations={w.cn.uuid: {"VCPU": 2, "MEMORY_MB": 1024}},
                    project_id=PROJECT, user_id=USER, consumer_generation=1)
    return w


def test_provider_consumers_csv_has_every_consumer(staff, cloud):
    page = staff.get(f"/console/providers/{cloud.cn.uuid}/").content.decode()
    assert 'id="csv-consumers" href="?table=consumers&amp;format=csv"' in page
    rows = _rows(staff.get(f"/console/providers/{cloud.cn.uuid}/",
                           {"table": "consumers", "format": "csv"}))
    assert rows[0] == ["consumer_uuid", "project_id", "user_id", "consumer_type",
                       "resource_class", "used", "provider_uuid", "provider_name"]
    assert len({r[0] for r in rows[1:]}) == 210
    assert [cloud.consumers[0], PROJECT, USER, "", "MEMORY_MB", "1024", cloud.cn.uuid,
            cloud.cn.name] in rows
    assert sum(int(r[5]) for r in rows[1:] if r[4] == "VCPU") == 105 * 1 + 105 * 2 + 1


def test_provider_and_consumer_history_csv(staff, cloud):
    rows = _rows(staff.get(f"/console/providers/{cloud.cn.uuid}/",
                           {"table": "history", "format": "csv"}))
    assert rows[0][:6] == ["created_at", "consumer_uuid", "provider_uuid", "resource_class",
                           "amount_before", "amount_after"]
    assert "source" in rows[0] and "owner_change" in rows[0]
    assert len(rows) == 1 + 210 + 2  # more than the page's 50; the PUT changed two
    page = staff.get(f"/console/consumers/{cloud.consumers[0]}/").content.decode()
    assert 'id="csv-history" href="?table=history&amp;format=csv"' in page
    assert 'id="csv-allocations" href="?table=allocations&amp;format=csv"' in page
    rows = _rows(staff.get(f"/console/consumers/{cloud.consumers[0]}/",
                           {"table": "history", "format": "csv"}))
    source = rows[0].index("source")
    assert [(r[3], r[4], r[5], r[source]) for r in rows[1:]] == [
        ("VCPU", "0", "1", "internal"), ("MEMORY_MB", "0", "1024", "internal"),
        ("VCPU", "1", "2", "internal")]
    rows = _rows(staff.get(f"/console/consumers/{cloud.consumers[0]}/",
                           {"table": "allocations", "format": "csv"}))
    assert rows == [["provider_uuid", "provider_name", "resource_class", "used"],
                    [cloud.cn.uuid, "cn1", "MEMORY_MB", "1024"],
                    [cloud.cn.uuid, "cn1", "VCPU", "2"]]


def test_usage_csv_follows_the_page_choice(staff, cloud):
    now = timezone.now()
    snapshots.take(now=now - timezone.timedelta(days=20), force=True)
    snapshots.take(now=now - timezone.timedelta(hours=1), force=True)
    page = staff.get("/console/usage/").content.decode()
    assert 'id="csv-usage"' in page
    rows = _rows(staff.get("/console/usage/", {"format": "csv"}))
    assert rows[0] == ["taken_at", "aggregate_uuid", "resource_class", "capacity", "used"]
    assert {(r[1], r[2], r[3], r[4]) for r in rows[1:]} == {
        ("", "MEMORY_MB", "65536", "1024"), ("", "VCPU", "512", "316")}
    assert len(rows) == 3  # the forecast's window (14 days) only
    rows = _rows(staff.get("/console/usage/", {"format": "csv", "days": 30,
                                               "aggregate": cloud.agg.uuid}))
    assert len(rows) == 5 and {r[1] for r in rows[1:]} == {cloud.agg.uuid}


def test_unknown_table_is_a_404(staff, cloud):
    assert staff.get(f"/console/providers/{cloud.cn.uuid}/",
                     {"table": "nope", "format": "csv"}).status_code == 404
    assert staff.get(f"/console/consumers/{cloud.consumers[0]}/",
                     {"table": "nope", "format": "csv"}).status_code == 404
