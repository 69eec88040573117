"""The lists that had no CSV download have one, through the same mechanism
as the provider and consumer lists: the forest (one row per provider and
class), the per-project usage totals, and the overview's tables."""
import csv
import io

import pytest

from allocations.models import Allocation
from tests import factories as f

pytestmark = pytest.mark.django_db


@pytest.fixture
def cloud(settings):
    from placement_core.querystring import Flavor

    settings.PLACEMENT_FLAVORS = [Flavor("small", {"VCPU": 2})]
    agg = f.AggregateFactory()
    cn = f.ResourceProviderFactory(name="cn1")
    cn.aggregates.add(agg)
    numa = f.ResourceProviderFactory(name="cn1-numa0", parent=cn)
    f.InventoryFactory(resource_provider=numa, total=16, reserved=2, allocation_ratio=2.0)
    f.InventoryFactory(resource_provider=numa, resource_class=f.resource_class("MEMORY_MB"),
                       total=4096)
    bare = f.ResourceProviderFactory(name="cn1-nic", parent=cn)
    other = f.ResourceProviderFactory(name="cn2")
    f.InventoryFactory(resource_provider=other, total=4)
    p1, p2 = f.ProjectFactory(external_id="proj-a"), f.ProjectFactory(external_id="proj-b")
    for project, used in ((p1, 3), (p1, 1), (p2, 2)):
        f.AllocationFactory(resource_provider=numa, used=used,
                            consumer=f.ConsumerFactory(project=project))
    f.AllocationFactory(resource_provider=numa, resource_class=f.resource_class("MEMORY_MB"),
                        used=512, consumer=Allocation.objects.filter(
                            consumer__project=p1).first().consumer)
    return {"cn": cn, "numa": numa, "bare": bare, "other": other, "agg": agg}


def _rows(response):
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_forest_csv_one_row_per_provider_and_class(staff, cloud):
    rows = _rows(staff.get("/console/forest/", {"format": "csv"}))
    assert rows[0] == ["uuid", "name", "parent_uuid", "root_uuid", "resource_class", "total",
                       "reserved", "used", "capacity", "consumers"]
    cn, numa, bare = cloud["cn"], cloud["numa"], cloud["bare"]
    by = {(r[1], r[4]): r for r in rows[1:]}
    assert by[("cn1-numa0", "VCPU")] == [numa.uuid, "cn1-numa0", cn.uuid, cn.uuid, "VCPU",
                                         "16", "2", "6", "28", "3"]
    assert by[("cn1-numa0", "MEMORY_MB")][5:] == ["4096", "0", "512", "4096", "3"]
    assert by[("cn1-nic", "")] == [bare.uuid, "cn1-nic", cn.uuid, cn.uuid, "", "", "", "", "",
                                   "0"]
    assert by[("cn1", "")][2:4] == ["", cn.uuid]
    assert len(rows) == 1 + 5
    # The search of the page applies; every matching tree, not the page's cap.
    searched = _rows(staff.get("/console/forest/", {"q": "cn2", "format": "csv"}))
    assert [r[1] for r in searched[1:]] == ["cn2"]


def test_forest_page_links_its_csv(staff, cloud):
    html = staff.get("/console/forest/", {"q": "numa0"}).content.decode()
    assert 'href="?q=numa0&amp;format=csv"' in html


def test_project_totals_csv(staff, cloud):
    html = staff.get("/console/consumers/").content.decode()
    assert 'href="?table=projects&amp;format=csv"' in html
    rows = _rows(staff.get("/console/consumers/", {"table": "projects", "format": "csv"}))
    assert rows == [["project", "consumers", "resource_class", "used"],
                    ["proj-a", "2", "MEMORY_MB", "512"], ["proj-a", "2", "VCPU", "4"],
                    ["proj-b", "1", "VCPU", "2"]]


def test_overview_tables_csv(staff, cloud):
    html = staff.get("/console/").content.decode()
    for table in ("totals", "headroom", "fullest"):
        assert f'href="?table={table}&amp;format=csv"' in html
    totals = _rows(staff.get("/console/", {"table": "totals", "format": "csv"}))
    assert totals[0] == ["resource_class", "total", "reserved", "allocation_ratio_min",
                         "allocation_ratio_max", "capacity", "used", "free"]
    assert ["VCPU", "20", "2", "1.0", "2.0", "32", "6", "26"] in totals
    headroom = _rows(staff.get("/console/", {"table": "headroom", "format": "csv"}))
    assert headroom == [["flavor", "resources", "aggregate", "instances"],
                        ["small", "VCPU:2", "", "13"],
                        ["small", "VCPU:2", cloud["agg"].uuid, "11"]]
    fullest = _rows(staff.get("/console/", {"table": "fullest", "format": "csv"}))
    assert fullest[0] == ["uuid", "name", "resource_class", "used", "capacity", "percent"]
    assert fullest[1][:5] == [cloud["numa"].uuid, "cn1-numa0", "VCPU", "6", "28"]


def test_unknown_table_is_a_404(staff, cloud):
    assert staff.get("/console/", {"table": "nope", "format": "csv"}).status_code == 404
