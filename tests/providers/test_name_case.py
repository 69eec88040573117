"""Names that differ only in case are different names on PostgreSQL and
SQLite.  On MariaDB/MySQL upstream's tables take the server's default,
case-insensitive collation (as upstream's own db sync makes them: the
shared schema), so there they are one name, as upstream answers."""
import pytest
from django.db import connection


@pytest.mark.django_db
def test_provider_names_differing_in_case_are_two_providers(api):
    assert api.post("/resource_providers", json={"name": "compute-a"}).status_code == 201
    if connection.vendor == "mysql":
        assert api.post("/resource_providers", json={"name": "COMPUTE-A"}).status_code == 409
        return
    assert api.post("/resource_providers", json={"name": "COMPUTE-A"}).status_code == 201
    names = {p["name"] for p in api.get("/resource_providers").json()["resource_providers"]}
    assert names == {"compute-a", "COMPUTE-A"}
    found = api.get("/resource_providers?name=COMPUTE-A").json()["resource_providers"]
    assert [p["name"] for p in found] == ["COMPUTE-A"]


@pytest.mark.django_db
def test_same_name_in_same_case_still_conflicts(api):
    assert api.post("/resource_providers", json={"name": "compute-b"}).status_code == 201
    assert api.post("/resource_providers", json={"name": "compute-b"}).status_code == 409
