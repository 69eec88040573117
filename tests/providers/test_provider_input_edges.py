"""Hostile input never reaches the database as an error: 4xx, never 500."""
import pytest

from providers.models import ResourceProvider
from tests.factories import InventoryFactory, ResourceProviderFactory


@pytest.mark.parametrize(
    "query, status",
    [
        ("resources=VCPU:99999999999999999999", 200),
        ("resources=VCPU:9223372036854775807", 200),
        ("name=%00", 400),
        ("uuid=%00", 400),
        ("required=HW_%00", 400),
        ("member_of=%00", 400),
    ],
)
def test_list_with_extreme_values(api, query, status):
    InventoryFactory(resource_provider=ResourceProviderFactory())
    response = api.get(f"/resource_providers?{query}", mv="1.39")
    assert response.status_code == status
    if status == 200:
        assert response.json() == {"resource_providers": []}


def test_name_with_nul_is_400(api):
    response = api.post("/resource_providers", mv="1.20", json={"name": "a\u0000b"})
    assert response.status_code == 400
    assert not ResourceProvider.objects.exists()


@pytest.mark.parametrize(
    "method, path, body",
    [
        ("get", "/resource_providers/%00", None),
        ("put", "/resource_providers/%00", {"name": "x"}),
        ("delete", "/resource_providers/%00", None),
        ("get", "/resource_providers/%00/aggregates", None),
        ("put", "/resource_providers/%00/aggregates",
         {"aggregates": [], "resource_provider_generation": 0}),
        ("get", "/resource_providers/%00/traits", None),
        ("put", "/resource_providers/%00/traits", {"traits": [], "resource_provider_generation": 0}),
        ("delete", "/resource_providers/%00/traits", None),
    ],
)
def test_nul_in_path_is_404(api, method, path, body):
    kwargs = {"json": body} if body is not None else {}
    assert getattr(api, method)(path, mv="1.39", **kwargs).status_code == 404
