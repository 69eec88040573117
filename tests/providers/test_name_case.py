"""Names that differ only in case are different names, on every database
(MariaDB/MySQL included: their tables compare text byte for byte)."""
import pytest


@pytest.mark.django_db
def test_provider_names_differing_in_case_are_two_providers(api):
    assert api.post("/resource_providers", json={"name": "compute-a"}).status_code == 201
    assert api.post("/resource_providers", json={"name": "COMPUTE-A"}).status_code == 201
    names = {p["name"] for p in api.get("/resource_providers").json()["resource_providers"]}
    assert names == {"compute-a", "COMPUTE-A"}
    found = api.get("/resource_providers?name=COMPUTE-A").json()["resource_providers"]
    assert [p["name"] for p in found] == ["COMPUTE-A"]


@pytest.mark.django_db
def test_same_name_in_same_case_still_conflicts(api):
    assert api.post("/resource_providers", json={"name": "compute-b"}).status_code == 201
    assert api.post("/resource_providers", json={"name": "compute-b"}).status_code == 409
