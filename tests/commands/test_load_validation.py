"""load_json refuses a dump with any row the API would not accept, naming
the row and the reason, and writes nothing (the database stays identical)."""
import copy
import json

import pytest

from tests.commands.helpers import every_row, populate, run, snapshot

pytestmark = pytest.mark.django_db

NOT_A_UUID = "not-a-uuid"


def _first_inventory(dump):
    rp = next(p for p in dump["resource_providers"] if p.get("inventories"))
    return rp, next(iter(rp["inventories"].values()))


def _break(kind):
    def edit(dump):
        rp, inv = _first_inventory(dump)
        if kind == "negative total":
            inv["total"] = -5
        elif kind == "reserved above total":
            inv["reserved"] = inv["total"] + 1
        elif kind == "max_unit 0":
            inv["max_unit"] = 0
        elif kind == "negative allocation ratio":
            inv["allocation_ratio"] = -1.0
        elif kind == "unknown resource class":
            rp["inventories"]["NOT_A_CLASS"] = dict(inv)
        elif kind == "provider uuid":
            rp["uuid"] = NOT_A_UUID
        elif kind == "allocation amount":
            dump["consumers"][0]["allocations"][0]["used"] = 0
        elif kind == "consumer uuid":
            dump["consumers"][0]["uuid"] = NOT_A_UUID
        elif kind == "empty project":
            dump["consumers"][0]["project"] = ""
        elif kind == "consumer type with a NUL":
            dump["consumer_types"].append("A\x00B")
        elif kind == "consumer type too long":
            dump["consumer_types"].append("A" * 256)
        elif kind == "unknown trait":
            rp["traits"] = list(rp.get("traits", [])) + ["lower_case"]
    return edit


KINDS = ["negative total", "reserved above total", "max_unit 0", "negative allocation ratio",
         "unknown resource class", "provider uuid", "allocation amount", "consumer uuid",
         "empty project", "unknown trait", "consumer type with a NUL",
         "consumer type too long"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_bad_row_refuses_the_whole_file(tmp_path, kind):
    populate()
    before = snapshot()
    stored = every_row()
    dump = copy.deepcopy(before)
    # Something else changes too, to show nothing at all is written.
    dump["resource_providers"][0]["name"] = "renamed-by-the-load"
    _break(kind)(dump)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(dump))
    code, out = run("load_json", str(path))
    assert code == 2
    assert "refused, nothing written" in out
    assert snapshot() == before
    assert every_row() == stored


def test_the_message_names_row_and_reason(tmp_path):
    populate()
    dump = snapshot()
    rp, inv = _first_inventory(dump)
    inv["reserved"] = inv["total"] + 1
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(dump))
    code, out = run("load_json", str(path))
    assert code == 2
    assert f"({rp['uuid']!r}) inventory" in out
    assert "The reserved value is greater than total." in out


def test_a_good_dump_still_loads(tmp_path):
    populate()
    dump = snapshot()
    path = tmp_path / "good.json"
    path.write_text(json.dumps(dump))
    assert run("load_json", str(path))[0] == 0


def test_status_and_audit_flag_rows_written_behind_the_api():
    from django.db import connection

    from providers.models import Inventory

    populate()
    inv = Inventory.objects.select_related("resource_provider").first()
    with connection.cursor() as cursor:
        cursor.execute("UPDATE inventories SET reserved = total + 5 WHERE id = %s", [inv.pk])
    code, out = run("placement_status")
    assert code == 1
    assert "[FAIL] Stored rows are valid" in out
    assert f"of provider {inv.resource_provider.uuid}" in out
    code, out = run("audit_allocations")
    assert code == 1
    assert "stored rows the API would refuse: 1" in out


def test_import_upstream_refuses_a_bad_row(tmp_path):
    import sqlite3

    from providers.models import ResourceProvider
    from tests.commands import upstream_schema as up

    path = tmp_path / "upstream.sqlite"
    up.build(str(path))
    db = sqlite3.connect(path)
    db.execute("UPDATE inventories SET max_unit = 0")
    db.commit()
    db.close()
    code, out = run("import_upstream", "--database-url", f"sqlite:///{path}")
    assert code == 2
    assert "refused, nothing written" in out and "max_unit" in out
    assert not ResourceProvider.objects.exists()


def test_status_and_audit_flag_names_and_consumer_uuids_the_api_would_refuse():
    """An older load could store a class or trait name that is neither
    standard nor CUSTOM_, and a consumer whose uuid is not one."""
    from django.db import connection

    from providers.models import Inventory
    from resource_classes.models import ResourceClass, Trait

    root, _, consumer = populate()
    odd = ResourceClass.objects.create(id=10000, name="NOT_A_CLASS")
    Inventory.objects.create(resource_provider=root, resource_class=odd, total=4, max_unit=4)
    Trait.objects.create(name="lower_case")
    with connection.cursor() as cursor:
        cursor.execute("UPDATE consumers SET uuid = 'not-a-uuid' WHERE id = %s", [consumer.pk])
    code, out = run("placement_status")
    assert code == 1
    assert "[FAIL] Stored rows are valid" in out
    assert "resource class 'NOT_A_CLASS' is neither standard nor CUSTOM_" in out
    assert "trait 'lower_case' is neither standard nor CUSTOM_" in out
    assert "consumer uuid 'not-a-uuid' is not a uuid" in out
    code, out = run("audit_allocations")
    assert code == 1
    assert "stored rows the API would refuse: 3" in out
