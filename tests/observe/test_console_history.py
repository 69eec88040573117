"""The console's consumer and provider pages show the allocation timeline."""
import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.support.claims import body, new_uuid


@pytest.fixture
def staff(db):
    user = get_user_model().objects.create_user("op", password="pw", is_staff=True)
    client = Client()
    client.force_login(user)
    return client


def test_timeline_on_consumer_and_provider_pages(api, provider, staff):
    consumer = new_uuid()
    r = api.put(f"/allocations/{consumer}", mv="1.28",
                json=body({provider.uuid: {"VCPU": 2}}, consumer_generation=None))
    request_id = r["x-openstack-request-id"]
    api.put(f"/allocations/{consumer}", mv="1.28",
            json=body({provider.uuid: {"VCPU": 3}}, consumer_generation=1))
    page = staff.get(f"/console/consumers/{consumer}/").content.decode()
    assert 'id="history"' in page and request_id in page and provider.uuid in page
    # Newest first: the 2 -> 3 change comes before the 0 -> 2 one.
    timeline = page[page.index('id="history"'):]
    # (amounts are spans carrying the raw count).
    assert timeline.index('data-sort="3"') < timeline.index('data-sort="0"')
    page = staff.get(f"/console/providers/{provider.uuid}/").content.decode()
    assert 'id="history"' in page and consumer in page


def test_empty_timeline(provider, staff):
    page = staff.get(f"/console/providers/{provider.uuid}/").content.decode()
    assert "No recorded changes." in page
