"""Hostile input gets a 4xx and changes nothing (never a 500)."""
import pytest

from resource_classes.models import ResourceClass, Trait
from tests.factories import ResourceClassFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "method, path, expected",
    [
        ("GET", "/traits/A%00B", 404),
        ("PUT", "/traits/CUSTOM_A%00B", 400),
        ("DELETE", "/traits/CUSTOM_A%00B", 404),
        ("GET", "/resource_classes/A%00B", 404),
        ("PUT", "/resource_classes/CUSTOM_A%00B", 400),
        ("DELETE", "/resource_classes/CUSTOM_A%00B", 404),
        ("PUT", "/traits/CUSTOM_A%0A", 400),
        ("PUT", "/resource_classes/CUSTOM_A%0A", 400),
        ("GET", "/traits/%C3%A9", 404),
        ("GET", "/traits/" + "A" * 5000, 404),
    ],
)
def test_odd_names_in_the_path(api, method, path, expected):
    before = (ResourceClass.objects.count(), Trait.objects.count())
    response = api.request(method, path, mv="1.7")
    assert response.status_code == expected
    assert (ResourceClass.objects.count(), Trait.objects.count()) == before


@pytest.mark.parametrize(
    "query", ["name=in:A%00B", "name=startswith:A%00B", "name=in:", "name=startswith:"]
)
def test_odd_trait_filters(api, query):
    response = api.get(f"/traits?{query}", mv="1.6")
    assert response.status_code == 200
    traits = response.json()["traits"]
    if query == "name=startswith:":
        assert len(traits) == Trait.objects.count()
    else:
        assert traits == []


def test_nul_in_associated_is_400(api):
    assert api.get("/traits?associated=tr%00ue", mv="1.6").status_code == 400


@pytest.mark.parametrize("name", ["CUSTOM_A\n", "CUSTOM_\u0000", "CUSTOM_\u00c9"])
def test_odd_names_in_bodies(api, name):
    ResourceClassFactory(name="CUSTOM_X")
    before = set(ResourceClass.objects.values_list("name", flat=True))
    assert api.post("/resource_classes", mv="1.2", json={"name": name}).status_code == 400
    response = api.put("/resource_classes/CUSTOM_X", mv="1.6", json={"name": name})
    assert response.status_code == 400
    assert set(ResourceClass.objects.values_list("name", flat=True)) == before
