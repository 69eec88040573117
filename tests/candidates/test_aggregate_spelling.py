"""member_of on /allocation_candidates finds aggregates stored without dashes."""
import uuid

import pytest

from tests.factories import ResourceProviderFactory

pytestmark = pytest.mark.django_db


def test_member_of_matches_dashless_stored_aggregate(api):
    provider = ResourceProviderFactory()
    assert api.put(f"/resource_providers/{provider.uuid}/inventories", mv="1.20",
                   json={"resource_provider_generation": 0,
                         "inventories": {"VCPU": {"total": 4}}}).status_code == 200
    agg = uuid.uuid4()
    api.put(f"/resource_providers/{provider.uuid}/aggregates", mv="1.1", json=[agg.hex])
    for spelled in (agg.hex, str(agg)):
        body = api.get(f"/allocation_candidates?resources=VCPU:1&member_of={spelled}",
                       mv="1.21").json()
        assert list(body["provider_summaries"]) == [str(provider.uuid)]
    body = api.get(f"/allocation_candidates?resources=VCPU:1&member_of=!{agg}",
                   mv="1.32").json()
    assert body["allocation_requests"] == []
