"""What osc-placement shows for a rejected resource class: the detail's last line."""
import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("mv,method,path,body", [
    ("1.2", "post", "/resource_classes", {"name": "fake_class"}),
    ("1.2", "put", "/resource_classes/CUSTOM_OLD", {"name": "lowercase"}),
])
def test_schema_error_is_on_the_last_line(api, mv, method, path, body):
    api.post("/resource_classes", mv="1.2", json={"name": "CUSTOM_OLD"})
    response = getattr(api, method)(path, mv=mv, json=body)
    assert response.status_code == 400
    last_line = response.json()["errors"][0]["detail"].split("\n")[-1]
    assert "JSON does not validate" in last_line
