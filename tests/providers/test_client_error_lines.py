"""What osc-placement shows for a rejected aggregate list: the detail's last line."""
import pytest

from tests.factories import ResourceProviderFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("mv,body", [
    ("1.1", ["abc", "efg"]),
    ("1.19", {"aggregates": ["abc", "efg"], "resource_provider_generation": 0}),
])
def test_bad_aggregate_uuid_reason_is_on_the_last_line(api, mv, body):
    rp = ResourceProviderFactory()
    response = api.put(f"/resource_providers/{rp.uuid}/aggregates", mv=mv, json=body)
    assert response.status_code == 400
    last_line = response.json()["errors"][0]["detail"].split("\n")[-1]
    assert "is not a 'uuid'" in last_line
    rp.refresh_from_db()
    assert rp.generation == 0
