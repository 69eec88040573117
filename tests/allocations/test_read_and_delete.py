"""GET and DELETE /allocations/{consumer_uuid}, GET /resource_providers/{uuid}/allocations."""
import re

import pytest
from django.db import connection

from allocations.models import Allocation, Consumer, Project
from tests.factories import AllocationFactory, ConsumerFactory, resource_class
from tests.support.claims import PROJECT, USER, body, detail, list_body, new_uuid

HTTP_DATE = re.compile(r"^\w+, \d+ \w+ \d{4} [\d:]+ GMT$")


@pytest.fixture
def consumer(api, provider, provider2):
    uuid = new_uuid()
    r = api.put(f"/allocations/{uuid}", mv="1.38", json=body(
        {provider.uuid: {"VCPU": 2, "DISK_GB": 20}, provider2.uuid: {"DISK_GB": 5}},
        consumer_generation=None, consumer_type="INSTANCE"))
    assert r.status_code == 204
    return uuid


def test_unknown_consumer_is_empty_at_every_version(api):
    for mv in ("1.0", "1.12", "1.28", "1.38"):
        r = api.get(f"/allocations/{new_uuid()}", mv=mv)
        assert r.status_code == 200
        assert r.json() == {"allocations": {}}
    assert api.get("/allocations/not-a-uuid").json() == {"allocations": {}}


@pytest.mark.parametrize(
    "mv,keys",
    [
        ("1.0", {"allocations"}),
        ("1.11", {"allocations"}),
        ("1.12", {"allocations", "project_id", "user_id"}),
        ("1.27", {"allocations", "project_id", "user_id"}),
        ("1.28", {"allocations", "project_id", "user_id", "consumer_generation"}),
        ("1.37", {"allocations", "project_id", "user_id", "consumer_generation"}),
        ("1.38", {"allocations", "project_id", "user_id", "consumer_generation",
                  "consumer_type"}),
    ],
)
def test_shape_by_microversion(api, consumer, provider, provider2, mv, keys):
    got = api.get(f"/allocations/{consumer}", mv=mv).json()
    assert set(got) == keys
    assert got["allocations"] == {
        provider.uuid: {"generation": 1, "resources": {"VCPU": 2, "DISK_GB": 20}},
        provider2.uuid: {"generation": 1, "resources": {"DISK_GB": 5}},
    }
    if "project_id" in keys:
        assert (got["project_id"], got["user_id"]) == (PROJECT, USER)
    if "consumer_generation" in keys:
        assert got["consumer_generation"] == 1
    if "consumer_type" in keys:
        assert got["consumer_type"] == "INSTANCE"


def test_cache_headers_from_1_15(api, consumer, provider):
    for path in (f"/allocations/{consumer}", f"/resource_providers/{provider.uuid}/allocations"):
        old = api.get(path, mv="1.14")
        assert "cache-control" not in old and "last-modified" not in old
        new = api.get(path, mv="1.15")
        assert new["cache-control"] == "no-cache"
        assert HTTP_DATE.match(new["last-modified"])


def test_provider_allocations(api, consumer, provider, provider2):
    other = new_uuid()
    api.put(f"/allocations/{other}", json=list_body({provider.uuid: {"VCPU": 1}}))
    got = api.get(f"/resource_providers/{provider.uuid}/allocations").json()
    assert got == {
        "resource_provider_generation": 2,
        "allocations": {
            consumer: {"resources": {"VCPU": 2, "DISK_GB": 20}},
            other: {"resources": {"VCPU": 1}},
        },
    }
    empty = api.get(f"/resource_providers/{provider2.uuid}/allocations").json()
    assert list(empty["allocations"]) == [consumer]


def test_provider_allocations_unknown_provider(api):
    r = api.get(f"/resource_providers/{new_uuid()}/allocations")
    assert r.status_code == 404
    assert r.json()["errors"][0]["title"] == "Not Found"


def test_provider_allocations_query_count(api, provider, django_assert_num_queries):
    for _ in range(20):
        AllocationFactory(resource_provider=provider,
                          consumer=ConsumerFactory(project=Project.objects.get_or_create(
                              external_id=PROJECT)[0]),
                          resource_class=resource_class("VCPU"))
    # The provider and its allocations in one statement.
    with django_assert_num_queries(1):
        r = api.get(f"/resource_providers/{provider.uuid}/allocations")
    assert r.status_code == 200
    assert len(r.json()["allocations"]) == 20


def test_provider_without_allocations(api, provider, django_assert_num_queries):
    with django_assert_num_queries(1):
        r = api.get(f"/resource_providers/{provider.uuid.upper()}/allocations", mv="1.39")
    assert r.status_code == 200
    assert r.json() == {"allocations": {}, "resource_provider_generation": provider.generation}
    assert HTTP_DATE.match(r["last-modified"])


def test_consumer_allocations_query_count(api, consumer, django_assert_num_queries):
    with django_assert_num_queries(1):
        r = api.get(f"/allocations/{consumer}", mv="1.38")
    assert r.status_code == 200
    got = r.json()
    assert got["consumer_type"] == "INSTANCE" and got["consumer_generation"] == 1
    assert sum(len(a["resources"]) for a in got["allocations"].values()) == 3


def test_consumer_without_type(api, provider):
    uuid = new_uuid()
    api.put(f"/allocations/{uuid}", mv="1.28", json=body({provider.uuid: {"VCPU": 1}},
                                                          consumer_generation=None))
    assert api.get(f"/allocations/{uuid}", mv="1.38").json()["consumer_type"] == "unknown"


def test_consumer_whose_project_row_is_gone_holds_nothing(api, consumer):
    # The shared tables hold no foreign keys; a consumer's project can be
    # missing, and such a consumer reads as one without allocations.
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM projects WHERE external_id = %s", [PROJECT])
    assert api.get(f"/allocations/{consumer}", mv="1.38").json() == {"allocations": {}}


def test_delete(api, consumer, provider):
    provider.refresh_from_db()
    gen = provider.generation
    r = api.delete(f"/allocations/{consumer}")
    assert r.status_code == 204
    assert not Allocation.objects.filter(consumer__uuid=consumer).exists()
    assert not Consumer.objects.filter(uuid=consumer).exists()
    provider.refresh_from_db()
    assert provider.generation == gen
    r = api.delete(f"/allocations/{consumer}")
    assert r.status_code == 404
    assert f"No allocations for consumer '{consumer}'" in detail(r)


def test_delete_dashless(api, consumer):
    assert api.delete(f"/allocations/{consumer.replace('-', '')}").status_code == 204


def test_delete_unknown(api):
    r = api.delete(f"/allocations/{new_uuid()}")
    assert r.status_code == 404
    assert r.json()["errors"][0]["title"] == "Not Found"


def test_delete_does_not_bump_provider_generation(api, consumer, provider):
    provider.refresh_from_db()
    before = provider.generation
    api.delete(f"/allocations/{consumer}")
    provider.refresh_from_db()
    assert provider.generation == before


def test_read_and_delete_policies(api_factory, consumer, provider):
    client = api_factory(token="someone")
    assert client.get(f"/allocations/{consumer}").status_code == 403
    assert client.delete(f"/allocations/{consumer}").status_code == 403
    assert client.get(f"/resource_providers/{provider.uuid}/allocations").status_code == 403
    assert Consumer.objects.filter(uuid=consumer).exists()


@pytest.mark.parametrize("method,path,status", [
    ("get", "/allocations/%00", 200),
    ("delete", "/allocations/%00", 404),
    ("get", "/resource_providers/%00/allocations", 404),
    ("get", "/resource_providers/%00/usages", 404),
])
def test_nul_in_path_is_a_client_error_not_a_crash(api, method, path, status):
    # PostgreSQL text cannot hold NUL: these must not reach a query.
    assert getattr(api, method)(path).status_code == status
