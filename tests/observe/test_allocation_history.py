"""Every allocation change appends history in its own transaction; failures leave none."""
import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from allocations import changes
from allocations.models import Allocation
from allocations.services import allocations_set
from operations import history
from operations.models import AllocationChange
from tests.support.api import PlacementClient
from tests.support.claims import PROJECT, USER, body, new_uuid

GLOBAL_ID = "req-11111111-2222-3333-4444-555555555555"


def _history_json(*args):
    out = StringIO()
    call_command("allocation_history", *args, "--json", stdout=out)
    return json.loads(out.getvalue())["changes"]


def test_put_is_listed_by_the_command(api, provider):
    consumer = new_uuid()
    r = api.put(f"/allocations/{consumer}", mv="1.28",
                json=body({provider.uuid: {"VCPU": 2, "MEMORY_MB": 512}}, consumer_generation=None),
                headers={"X-OpenStack-Request-ID": GLOBAL_ID})
    assert r.status_code == 204, r.content
    changes = _history_json("--consumer", consumer)
    assert [(c["resource_class"], c["amount_before"], c["amount_after"]) for c in changes] == [
        ("MEMORY_MB", 0, 512), ("VCPU", 0, 2)]
    first = changes[0]
    assert first["provider_uuid"] == provider.uuid
    assert first["request_id"] == r["x-openstack-request-id"]
    assert first["global_request_id"] == GLOBAL_ID
    assert first["user_id"] == "admin" and first["project_id"] == "admin"
    assert first["microversion"] == "1.28"
    assert first["consumer_generation"] == 1
    assert first["source"] == "PUT /allocations"


def test_replace_and_delete_record_before_and_after(api, provider, provider2):
    consumer = new_uuid()
    api.put(f"/allocations/{consumer}", mv="1.28",
            json=body({provider.uuid: {"VCPU": 2}}, consumer_generation=None))
    r = api.put(f"/allocations/{consumer}", mv="1.28",
                json=body({provider.uuid: {"VCPU": 3}, provider2.uuid: {"DISK_GB": 10}},
                          consumer_generation=1))
    assert r.status_code == 204, r.content
    assert api.delete(f"/allocations/{consumer}", mv="1.28").status_code == 204
    by_request = {}
    for change in AllocationChange.objects.filter(consumer_uuid=consumer):
        by_request.setdefault(change.request_id, set()).add(
            (change.provider_uuid, change.resource_class, change.amount_before,
             change.amount_after, change.consumer_generation))
    assert list(by_request.values()) == [
        {(provider.uuid, "VCPU", 0, 2, 1)},
        {(provider2.uuid, "DISK_GB", 0, 10, 2), (provider.uuid, "VCPU", 2, 3, 2)},
        {(provider.uuid, "VCPU", 3, 0, 2), (provider2.uuid, "DISK_GB", 10, 0, 2)},
    ]
    assert [c["amount_after"] for c in _history_json("--provider", provider2.uuid)] == [10, 0]


def test_unchanged_amounts_are_not_recorded(api, provider):
    consumer = new_uuid()
    api.put(f"/allocations/{consumer}", mv="1.28",
            json=body({provider.uuid: {"VCPU": 2}}, consumer_generation=None))
    api.put(f"/allocations/{consumer}", mv="1.28",
            json=body({provider.uuid: {"VCPU": 2}}, consumer_generation=1))
    assert AllocationChange.objects.filter(consumer_uuid=consumer).count() == 1


def test_post_allocations_records_every_consumer(api, provider):
    a, b = new_uuid(), new_uuid()
    data = {c: {"allocations": {provider.uuid: {"resources": {"VCPU": 1}}},
                "project_id": PROJECT, "user_id": USER, "consumer_generation": None}
            for c in (a, b)}
    assert api.post("/allocations", mv="1.28", json=data).status_code == 204
    assert set(AllocationChange.objects.values_list("consumer_uuid", flat=True)) == {a, b}


def test_failed_request_leaves_no_history(api, provider):
    consumer = new_uuid()
    # Over capacity: the whole write is refused.
    r = api.put(f"/allocations/{consumer}", mv="1.28",
                json=body({provider.uuid: {"VCPU": 2, "MEMORY_MB": 4096}},
                          consumer_generation=None))
    assert r.status_code == 409
    # Stale generation.
    r = api.put(f"/allocations/{consumer}", mv="1.28",
                json=body({provider.uuid: {"VCPU": 2}}, consumer_generation=5))
    assert r.status_code == 409
    assert not AllocationChange.objects.exists()


def test_rolled_back_transaction_leaves_no_history(provider, transactional_db, monkeypatch):
    class Boom(Exception):
        pass

    real = changes.record

    def record_then_fail(*args):
        real(*args)
        assert AllocationChange.objects.count() == 1  # written inside the write's transaction
        raise Boom

    monkeypatch.setattr(changes, "record", record_then_fail)
    with pytest.raises(Boom):
        allocations_set(consumer_uuid=new_uuid(), allocations={provider.uuid: {"VCPU": 1}},
                        project_id=PROJECT, user_id=USER, consumer_generation=None)
    assert not AllocationChange.objects.exists()
    assert not Allocation.objects.exists()


def test_history_off_records_nothing(api, provider, settings):
    settings.PLACEMENT_ALLOCATION_HISTORY = False
    consumer = new_uuid()
    api.put(f"/allocations/{consumer}", mv="1.28",
            json=body({provider.uuid: {"VCPU": 2}}, consumer_generation=None))
    assert not AllocationChange.objects.exists()


def test_service_call_outside_a_request_is_marked_internal(provider):
    allocations_set(consumer_uuid=new_uuid(), allocations={provider.uuid: {"VCPU": 1}},
                    project_id=PROJECT, user_id=USER, consumer_generation=None)
    change = AllocationChange.objects.get()
    assert change.source == "internal" and change.request_id.startswith("req-")


def test_reshaper_records_moves(api, provider, provider2):
    consumer = new_uuid()
    api.put(f"/allocations/{consumer}", mv="1.28",
            json=body({provider.uuid: {"VCPU": 2}}, consumer_generation=None))
    provider.refresh_from_db()
    provider2.refresh_from_db()
    inventories = {
        rp.uuid: {"resource_provider_generation": rp.generation, "inventories": {
            rc: {"total": total} for rc, total in inv.items()}}
        for rp, inv in ((provider, {"VCPU": 8, "MEMORY_MB": 2048, "DISK_GB": 100}),
                        (provider2, {"VCPU": 8, "DISK_GB": 500}))
    }
    # The reshaper is service-only by default.
    nova = PlacementClient(token="nova", roles="service")
    r = nova.post("/reshaper", mv="1.30", json={
        "inventories": inventories,
        "allocations": {consumer: {"allocations": {provider2.uuid: {"resources": {"VCPU": 2}}},
                                   "project_id": PROJECT, "user_id": USER,
                                   "consumer_generation": 1}},
    })
    assert r.status_code == 204, r.content
    moves = list(AllocationChange.objects.filter(consumer_uuid=consumer).order_by("id")
                 .values_list("provider_uuid", "amount_before", "amount_after"))[1:]
    assert sorted(moves) == sorted([(provider.uuid, 2, 0), (provider2.uuid, 0, 2)])


def test_endpoint_is_admin_only(api, provider):
    consumer = new_uuid()
    api.put(f"/allocations/{consumer}", mv="1.28",
            json=body({provider.uuid: {"VCPU": 2}}, consumer_generation=None))
    client = Client()
    assert client.get(f"/history/consumers/{consumer}").status_code == 401
    denied = client.get(f"/history/consumers/{consumer}", HTTP_X_AUTH_TOKEN="alice")
    assert denied.status_code == 403
    assert json.loads(denied.content)["errors"][0]["status"] == 403
    r = client.get(f"/history/consumers/{consumer}", HTTP_X_AUTH_TOKEN="admin")
    assert r.status_code == 200
    assert "openstack-api-version" not in r
    data = json.loads(r.content)
    assert data["consumer"] == consumer
    assert [c["amount_after"] for c in data["changes"]] == [2]
    by_provider = json.loads(client.get(f"/history/providers/{provider.uuid}",
                                        HTTP_X_AUTH_TOKEN="admin").content)
    assert len(by_provider["changes"]) == 1
    future = client.get(f"/history/providers/{provider.uuid}?since=2999-01-01",
                        HTTP_X_AUTH_TOKEN="admin")
    assert json.loads(future.content)["changes"] == []
    assert client.get(f"/history/providers/{provider.uuid}?since=soon",
                      HTTP_X_AUTH_TOKEN="admin").status_code == 400
    assert client.get("/history/consumers/not-a-uuid",
                      HTTP_X_AUTH_TOKEN="admin").status_code == 404


def test_command_errors(provider, capsys):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="not a uuid"):
        call_command("allocation_history", "--consumer", "nope")
    with pytest.raises(CommandError, match="ISO 8601"):
        call_command("allocation_history", "--consumer", new_uuid(), "--since", "later")


def test_prune_honours_retention(provider, settings):
    allocations_set(consumer_uuid=new_uuid(), allocations={provider.uuid: {"VCPU": 1}},
                    project_id=PROJECT, user_id=USER, consumer_generation=None)
    AllocationChange.objects.update(created_at=timezone.now() - timezone.timedelta(days=40))
    settings.PLACEMENT_ALLOCATION_HISTORY_RETENTION_DAYS = 60
    out = StringIO()
    call_command("prune_allocation_history", stdout=out)
    assert "pruned 0" in out.getvalue()
    call_command("prune_allocation_history", "--days", "30", stdout=out)
    assert not AllocationChange.objects.exists()
    assert history.prune(days=0) == 0
