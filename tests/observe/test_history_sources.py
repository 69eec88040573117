"""The history records a change of owner with the same amounts, and every
row names the write it came from: a PUT, a POST /allocations move, a
reshape, a DELETE, a load or an import (which leave a starting record)."""
import json

import pytest

from operations.models import AllocationChange
from tests.commands import upstream_schema as up
from tests.commands.helpers import run
from tests.support.api import PlacementClient
from tests.support.claims import PROJECT, USER, body, new_uuid


def _rows(consumer):
    return list(AllocationChange.objects.filter(consumer_uuid=consumer).order_by("id")
                .values_list("resource_class", "amount_before", "amount_after", "source",
                             "owner_change"))


def test_a_new_project_with_the_same_amounts_is_recorded(api, provider):
    consumer = new_uuid()
    api.put(f"/allocations/{consumer}", mv="1.38",
            json=body({provider.uuid: {"VCPU": 2, "MEMORY_MB": 512}}, consumer_generation=None,
                      consumer_type="INSTANCE"))
    r = api.put(f"/allocations/{consumer}", mv="1.38",
                json=body({provider.uuid: {"VCPU": 2, "MEMORY_MB": 512}}, consumer_generation=1,
                          project="other-project", consumer_type="MIGRATION"))
    assert r.status_code == 204, r.content
    owner = (f"project {PROJECT} -> other-project; "
             "consumer_type INSTANCE -> MIGRATION")
    assert _rows(consumer)[2:] == [
        ("MEMORY_MB", 512, 512, "PUT /allocations", owner),
        ("VCPU", 2, 2, "PUT /allocations", owner),
    ]
    out = run("allocation_history", "--consumer", consumer)[1]
    assert f"PUT /allocations\n    owner: {owner}\n" in out
    from django.contrib.auth import get_user_model
    from django.test import Client

    staff = Client()
    staff.force_login(get_user_model().objects.create_user("op", password="pw", is_staff=True))
    page = staff.get(f"/console/consumers/{consumer}/").content.decode()
    assert f"owner: project {PROJECT} -&gt; other-project" in page
    # Only the user this time: recorded too; nothing when nothing changes.
    api.put(f"/allocations/{consumer}", mv="1.38",
            json=body({provider.uuid: {"VCPU": 2, "MEMORY_MB": 512}}, consumer_generation=2,
                      project="other-project", user="other-user", consumer_type="MIGRATION"))
    api.put(f"/allocations/{consumer}", mv="1.38",
            json=body({provider.uuid: {"VCPU": 2, "MEMORY_MB": 512}}, consumer_generation=3,
                      project="other-project", user="other-user", consumer_type="MIGRATION"))
    assert [r[4] for r in _rows(consumer)[4:]] == [f"user {USER} -> other-user"] * 2


def test_each_api_write_names_itself(api, provider, provider2):
    a, b = new_uuid(), new_uuid()
    api.put(f"/allocations/{a}", mv="1.28",
            json=body({provider.uuid: {"VCPU": 2}}, consumer_generation=None))
    # A move, as Nova does it: the instance's allocations go to the migration
    # consumer and the instance takes the destination's.
    r = api.post("/allocations", mv="1.28", json={
        b: {"allocations": {provider.uuid: {"resources": {"VCPU": 2}}},
            "project_id": PROJECT, "user_id": USER, "consumer_generation": None},
        a: {"allocations": {provider2.uuid: {"resources": {"VCPU": 2}}},
            "project_id": PROJECT, "user_id": USER, "consumer_generation": 1}})
    assert r.status_code == 204, r.content
    provider.refresh_from_db()
    provider2.refresh_from_db()
    nova = PlacementClient(token="nova", roles="service")
    r = nova.post("/reshaper", mv="1.30", json={
        "inventories": {rp.uuid: {"resource_provider_generation": rp.generation,
                                  "inventories": {"VCPU": {"total": 8}}}
                        for rp in (provider, provider2)},
        "allocations": {a: {"allocations": {provider.uuid: {"resources": {"VCPU": 1}}},
                            "project_id": PROJECT, "user_id": USER, "consumer_generation": 2},
                        b: {"allocations": {}, "project_id": PROJECT, "user_id": USER,
                            "consumer_generation": 1}}})
    assert r.status_code == 204, r.content
    assert api.delete(f"/allocations/{a}", mv="1.28").status_code == 204
    assert [r[3] for r in _rows(a)] == [
        "PUT /allocations", "POST /allocations", "POST /allocations",
        "POST /reshaper", "POST /reshaper", "DELETE /allocations"]
    assert {r[3] for r in _rows(b)} == {"POST /allocations", "POST /reshaper"}


def test_load_json_leaves_a_starting_record(db, tmp_path):
    from tests import factories as f

    consumer = f.ConsumerFactory()
    rp = f.ResourceProviderFactory()
    f.InventoryFactory(resource_provider=rp, total=16)
    f.AllocationFactory(consumer=consumer, resource_provider=rp, used=4)
    path = tmp_path / "dump.json"
    assert run("export_json", "-o", str(path))[0] == 0
    dump = json.loads(path.read_text())
    dump["consumers"][0]["allocations"][0]["used"] = 6
    path.write_text(json.dumps(dump))
    assert run("load_json", str(path), "--dry-run")[0] == 0
    assert not AllocationChange.objects.exists()
    assert run("load_json", str(path))[0] == 0
    assert _rows(consumer.uuid) == [("VCPU", 4, 6, "load_json", "")]
    assert run("load_json", str(path))[0] == 0  # nothing changed: nothing recorded
    assert AllocationChange.objects.count() == 1


def test_import_upstream_leaves_a_starting_record(db, tmp_path):
    path = tmp_path / "upstream.sqlite"
    up.build(str(path))
    assert run("import_upstream", "--database-url", f"sqlite:///{path}")[0] == 0
    assert sorted(_rows(up.CONSUMER)) == [("DISK_GB", 0, 100, "import_upstream", ""),
                                          ("VCPU", 0, 2, "import_upstream", "")]
    assert AllocationChange.objects.count() == 3
    assert set(AllocationChange.objects.values_list("source", flat=True)) == {"import_upstream"}


def test_healing_a_consumer_records_its_new_owner(db, settings):
    from tests import factories as f

    missing = f.ProjectFactory(external_id=settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID)
    consumer = f.ConsumerFactory(project=missing)
    f.AllocationFactory(consumer=consumer, used=3)
    code, out = run("heal_consumers", "--project-id", "p-real", "--user-id", "u-real")
    assert code == 0, out
    assert _rows(consumer.uuid) == [
        ("VCPU", 3, 3, "heal_consumers",
         f"project {settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID} -> p-real")]
