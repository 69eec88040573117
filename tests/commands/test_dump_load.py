import json

import pytest

from allocations.models import Allocation, Consumer
from providers.models import Inventory, ResourceProvider
from tests import factories as f
from tests.commands.helpers import counted, populate, run, snapshot

pytestmark = pytest.mark.django_db


def test_round_trip_into_empty_database(tmp_path):
    populate()
    path = tmp_path / "dump.json"
    assert run("export_json", "-o", str(path))[0] == 0
    before = json.loads(path.read_text())
    assert before["resource_providers"][1]["parent"] == before["resource_providers"][0]["uuid"]
    assert "id" not in json.dumps(before["resource_providers"][0]).replace('"uuid"', "")

    Allocation.objects.all().delete()
    Consumer.objects.all().delete()
    Inventory.objects.all().delete()
    ResourceProvider.objects.filter(parent__isnull=False).delete()
    ResourceProvider.objects.update(root=None, parent=None)  # MySQL checks FKs row by row
    ResourceProvider.objects.all().delete()

    code, out = run("load_json", str(path), "--dry-run")
    assert code == 0 and counted(out, "would load", "resource_providers")[:2] == [2, 2]
    assert not ResourceProvider.objects.exists()

    code, out = run("load_json", str(path))
    assert code == 0, out
    assert snapshot() == before
    assert ResourceProvider.objects.get(name="cn1").generation == 7

    code, out = run("load_json", str(path))
    assert counted(out, "loaded", "resource_providers") == [2, 0, 0]
    assert counted(out, "loaded", "allocations") == [2, 0, 0]
    assert snapshot() == before


def test_load_restores_changed_rows(tmp_path):
    root, child, c = populate()
    path = tmp_path / "dump.json"
    run("export_json", "-o", str(path))
    before = json.loads(path.read_text())
    Allocation.objects.filter(consumer=c).update(used=1)
    Inventory.objects.filter(resource_provider=child).update(total=99)
    ResourceProvider.objects.filter(pk=root.pk).update(name="renamed", generation=1)
    root.traits.clear()
    code, out = run("load_json", str(path))
    assert code == 0, out
    assert snapshot() == before


def test_load_rejects_bad_input(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert run("load_json", str(bad))[0] == 2
    bad.write_text('{"format": "other"}')
    assert run("load_json", str(bad))[0] == 2
    assert run("load_json", str(tmp_path / "missing.json"))[0] == 2
    bad.write_text(json.dumps({"format": "placement-dump", "version": 1,
                               "resource_providers": [{"uuid": "x"}]}))
    code, out = run("load_json", str(bad))
    assert code == 2
    assert not ResourceProvider.objects.exists()
