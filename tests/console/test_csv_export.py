"""Every console list downloads as CSV: all matches of its filters, not one page."""
import csv
import io

import pytest

from tests.console.populate import populate

pytestmark = pytest.mark.django_db


def _rows(response):
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_providers_csv_has_every_match_with_capacities(staff):
    populate(60)  # 60 nodes + 60 children + 6 pools: more than one page
    rows = _rows(staff.get("/console/providers/", {"format": "csv"}))
    assert rows[0] == ["uuid", "name", "parent_uuid", "generation", "resource_class",
                       "capacity", "used"]
    names = {r[1] for r in rows[1:]}
    assert len(names) == 126
    vcpu = next(r for r in rows if r[1] == "cn0000-numa0" and r[4] == "VCPU")
    assert vcpu[5] == "128"  # 32 x 4.0
    filtered = _rows(staff.get("/console/providers/", {"name": "cn0001", "format": "csv"}))
    assert {r[1] for r in filtered[1:]} == {"cn0001"}


def test_consumers_csv(staff):
    populate(10)
    rows = _rows(staff.get("/console/consumers/", {"format": "csv"}))
    assert rows[0][:3] == ["uuid", "project", "user"]
    assert len(rows) == 11


def test_the_list_page_links_its_csv(staff):
    populate(10)
    html = staff.get("/console/providers/", {"name": "cn0001"}).content.decode()
    assert 'href="?name=cn0001&amp;format=csv"' in html
