"""GET /resource_providers/{uuid}/usages and GET /usages (1.9+, grouped by type from 1.38)."""
import re

import pytest

from tests.factories import ResourceProviderFactory
from tests.support.claims import PROJECT, USER, body, detail, new_uuid

HTTP_DATE = re.compile(r"^\w+, \d+ \w+ \d{4} [\d:]+ GMT$")


def test_provider_usages(api, provider):
    r = api.get(f"/resource_providers/{provider.uuid}/usages")
    assert r.json() == {"resource_provider_generation": 0,
                        "usages": {"VCPU": 0, "MEMORY_MB": 0, "DISK_GB": 0}}
    assert "cache-control" not in r and "last-modified" not in r
    api.put(f"/allocations/{new_uuid()}", mv="1.12", json=body({provider.uuid: {"VCPU": 2}}))
    api.put(f"/allocations/{new_uuid()}", mv="1.12",
            json=body({provider.uuid: {"VCPU": 3, "DISK_GB": 20}}))
    r = api.get(f"/resource_providers/{provider.uuid}/usages", mv="1.15")
    assert r.json() == {"resource_provider_generation": 2,
                        "usages": {"VCPU": 5, "MEMORY_MB": 0, "DISK_GB": 20}}
    assert r["cache-control"] == "no-cache"
    assert HTTP_DATE.match(r["last-modified"])


def test_provider_usages_without_inventory(api):
    rp = ResourceProviderFactory()
    assert api.get(f"/resource_providers/{rp.uuid}/usages").json()["usages"] == {}


def test_provider_usages_unknown_provider(api):
    missing = new_uuid()
    r = api.get(f"/resource_providers/{missing}/usages")
    assert r.status_code == 404
    assert f"No resource provider with uuid {missing} found" in detail(r)


def test_usages_needs_1_9_and_project(api):
    assert api.get(f"/usages?project_id={PROJECT}", mv="1.8").status_code == 404
    r = api.get("/usages", mv="1.9")
    assert r.status_code == 400
    assert "'project_id' is a required property" in detail(r)


@pytest.mark.parametrize(
    "query,message",
    [
        ("project_id=", "Failed validating 'minLength'"),
        (f"project_id={PROJECT}&user_id=", "Failed validating 'minLength'"),
        ("project_id=" + "x" * 256, "Failed validating 'maxLength'"),
        (f"project_id={PROJECT}&dummy=1", "Additional properties are not allowed"),
        (f"project_id={PROJECT}&consumer_type=INSTANCE", "Additional properties are not allowed"),
    ],
)
def test_usages_query_validation(api, query, message):
    r = api.get(f"/usages?{query}", mv="1.37")
    assert r.status_code == 400
    assert "Invalid query string parameters" in detail(r)
    assert message in detail(r)


@pytest.fixture
def typed_allocations(api, provider, provider2):
    """PROJECT: INSTANCE x2 (USER, other user), MIGRATION x1, untyped x1; plus another project."""
    def put(rps, ctype=None, project=PROJECT, user=USER):
        if ctype is None:
            data = body(rps, project=project, user=user, consumer_generation=None)
            assert api.put(f"/allocations/{new_uuid()}", mv="1.37", json=data).status_code == 204
        else:
            data = body(rps, project=project, user=user, consumer_generation=None,
                        consumer_type=ctype)
            assert api.put(f"/allocations/{new_uuid()}", mv="1.38", json=data).status_code == 204

    put({provider.uuid: {"VCPU": 1, "DISK_GB": 10}}, "INSTANCE")
    put({provider.uuid: {"VCPU": 2}, provider2.uuid: {"DISK_GB": 100}}, "INSTANCE", user="u2")
    put({provider2.uuid: {"VCPU": 4}}, "MIGRATION")
    put({provider.uuid: {"MEMORY_MB": 512}})
    put({provider.uuid: {"VCPU": 1}}, "INSTANCE", project="other")


def test_usages_flat_before_1_38(api, typed_allocations):
    got = api.get(f"/usages?project_id={PROJECT}", mv="1.9").json()
    assert got == {"usages": {"VCPU": 7, "DISK_GB": 110, "MEMORY_MB": 512}}
    got = api.get(f"/usages?project_id={PROJECT}&user_id={USER}", mv="1.37").json()
    assert got == {"usages": {"VCPU": 5, "DISK_GB": 10, "MEMORY_MB": 512}}
    assert api.get("/usages?project_id=nobody", mv="1.9").json() == {"usages": {}}


def test_usages_by_consumer_type(api, typed_allocations):
    got = api.get(f"/usages?project_id={PROJECT}", mv="1.38").json()["usages"]
    assert got == {
        "INSTANCE": {"consumer_count": 2, "VCPU": 3, "DISK_GB": 110},
        "MIGRATION": {"consumer_count": 1, "VCPU": 4},
        "unknown": {"consumer_count": 1, "MEMORY_MB": 512},
    }
    got = api.get(f"/usages?project_id={PROJECT}&user_id={USER}", mv="1.38").json()["usages"]
    assert got["INSTANCE"] == {"consumer_count": 1, "VCPU": 1, "DISK_GB": 10}


@pytest.mark.parametrize(
    "ctype,expected",
    [
        ("INSTANCE", {"INSTANCE": {"consumer_count": 2, "VCPU": 3, "DISK_GB": 110}}),
        ("all", {"all": {"consumer_count": 4, "VCPU": 7, "DISK_GB": 110, "MEMORY_MB": 512}}),
        ("unknown", {"unknown": {"consumer_count": 1, "MEMORY_MB": 512}}),
        ("ALL", {}),
        ("UNKNOWN", {}),
        ("COW", {}),
    ],
)
def test_usages_consumer_type_filter(api, typed_allocations, ctype, expected):
    got = api.get(f"/usages?project_id={PROJECT}&consumer_type={ctype}", mv="1.38").json()
    assert got == {"usages": expected}


def test_usages_query_count(api, typed_allocations, django_assert_max_num_queries):
    with django_assert_max_num_queries(2):
        r = api.get(f"/usages?project_id={PROJECT}", mv="1.38")
    assert r.status_code == 200
    assert r.json()["usages"]["MIGRATION"] == {"consumer_count": 1, "VCPU": 4}


def test_usages_policy(api_factory):
    r = api_factory(token="someone").get(f"/usages?project_id={PROJECT}", mv="1.9")
    assert r.status_code == 403


@pytest.mark.parametrize("query", ["project_id=%00", "project_id=a&user_id=%00",
                                   "project_id=a&consumer_type=%00"])
def test_usages_nul_is_400(api, query):
    r = api.get(f"/usages?{query}", mv="1.38")
    assert r.status_code == 400
    assert "Invalid query string parameters" in detail(r)
