"""demo_cloud: the realistic small cloud, written through the services, and
a console login; refuses a database that already holds providers."""
import pytest
from django.contrib.auth import get_user_model

from allocations.models import Consumer
from operations.audit import over_capacity
from providers.models import ResourceProvider
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db


def test_demo_cloud_loads_a_consistent_cloud_and_a_login():
    code, out = run("demo_cloud")
    assert code == 0, out
    assert "loaded 17 providers and 13 consumers" in out
    password = out.split("console login: demo / ")[1].split()[0]
    assert get_user_model().objects.get(username="demo").check_password(password)
    assert ResourceProvider.objects.filter(parent__isnull=False).count() == 12  # cells, NICs
    assert ResourceProvider.objects.filter(
        traits__name="MISC_SHARES_VIA_AGGREGATE").count() == 1
    assert Consumer.objects.filter(consumer_type__name="MIGRATION").count() == 1
    assert over_capacity() == []
    code, out = run("audit_allocations")
    assert code == 0, out


def test_demo_cloud_wants_an_empty_database():
    ResourceProvider.objects.create(name="existing", uuid="7c8c1a0e-5a55-4e0a-9d55-6a2d2f6a7a01")
    code, out = run("demo_cloud")
    assert code == 2
    assert "already holds providers" in out
