"""Query strings and paths built to hurt: NUL characters, a limit past any
machine integer, more parameters than Django parses. 4xx, never a 500."""
import pytest

from tests.factories import InventoryFactory, ResourceProviderFactory

pytestmark = pytest.mark.django_db


def _error(response):
    return response.json()["errors"][0]


@pytest.mark.parametrize("suffix,method", [
    ("/inventories", "GET"), ("/inventories", "PUT"), ("/inventories", "POST"),
    ("/inventories", "DELETE"), ("/inventories/VCPU", "GET"), ("/inventories/VCPU", "PUT"),
    ("/inventories/VCPU", "DELETE"),
])
def test_nul_in_the_uuid_of_inventory_routes_is_404(api, suffix, method):
    rp = ResourceProviderFactory()
    body = {"resource_provider_generation": 0, "resource_class": "VCPU", "total": 1,
            "inventories": {}}
    response = api.request(method, f"/resource_providers/{rp.uuid}%00{suffix}", mv="1.39",
                           json=body if method in ("PUT", "POST") else None)
    assert response.status_code == 404


@pytest.mark.parametrize("query", [
    "resources=VC%00PU:1",
    "resources=VCPU:1&required=CUSTOM_%00A",
    "resources=VCPU:1&member_of=a%00",
    "resources1=VCPU:1&in_tree1=%00",
    "resources%00=VCPU:1",
])
def test_nul_in_a_candidates_query_is_400(api, query):
    response = api.get(f"/allocation_candidates?{query}", mv="1.39")
    assert response.status_code == 400
    assert "contains a NUL character" in _error(response)["detail"]


# The last: more digits than Python's int() reads (4,300); it raised
# ValueError, a 500.
@pytest.mark.parametrize("limit", ["2147483648", "99999999999999999999999", "9" * 5000])
def test_candidates_limit_past_a_machine_integer(api, limit):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=8)
    response = api.get(f"/allocation_candidates?resources=VCPU:1&limit={limit}", mv="1.39")
    assert response.status_code == 400
    assert "limit must be at most 2147483647" in _error(response)["detail"]
    ok = api.get("/allocation_candidates?resources=VCPU:1&limit=2147483647", mv="1.39")
    assert ok.status_code == 200 and len(ok.json()["allocation_requests"]) == 1


def test_more_query_parameters_than_django_parses(api):
    query = "&".join(f"p{i}=1" for i in range(1100))
    for path in ("/resource_providers", "/allocation_candidates", "/usages"):
        response = api.get(f"{path}?{query}", mv="1.39")
        assert response.status_code == 400, path
        assert "number of GET/POST parameters" in _error(response)["detail"]


@pytest.mark.parametrize("path", [
    "/allocation_candidates?resources=VCPU:99999999999999999999999",
    "/allocation_candidates?resources1=VCPU:99999999999999999999999&resources2=VCPU:1"
    "&group_policy=none",
    "/resource_providers?resources=VCPU:99999999999999999999999",
])
def test_an_amount_past_a_machine_integer_finds_nothing(api, path):
    # No provider can give more than max_unit (at most 2147483647) at once:
    # such an amount matches nothing, as upstream answers on PostgreSQL.
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, total=8)
    response = api.get(path, mv="1.39")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body.get("allocation_requests", []) == [] and body.get("resource_providers", []) == []


@pytest.mark.parametrize("method,status", [("GET", 404), ("PUT", 400), ("DELETE", 404)])
def test_nul_in_the_class_of_an_inventory_route_is_a_4xx(api, method, status):
    # PostgreSQL text cannot hold a NUL: the class is looked up only when it
    # could exist, so the answer is the one for any class without inventory.
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp)
    body = {"resource_provider_generation": rp.generation, "total": 1}
    response = api.request(method, f"/resource_providers/{rp.uuid}/inventories/VC%00PU",
                           mv="1.39", json=body if method == "PUT" else None)
    assert response.status_code == status
    assert "VC\x00PU" in _error(response)["detail"]
    assert api.get(f"/resource_providers/{rp.uuid}/inventories/VCPU").status_code == 200
