"""benchmarks/synthetic_cloud.py writes a cloud this service then serves.

PostgreSQL and MariaDB only (the loader speaks COPY and multi-row INSERT):
the cloud goes into the test database through the loader's own connection,
then every figure is read back through the API and checked against a count
made from the loader's rows.
"""
import io
import random
from collections import Counter, defaultdict

import pytest
from django.conf import settings
from django.db import connection

from benchmarks import synthetic_cloud
from tests.support.api import PlacementClient

needs_a_server_database = pytest.mark.skipif(
    connection.vendor not in ("postgresql", "mysql"),
    reason="the loader writes PostgreSQL or MariaDB")


def _url():
    db = settings.DATABASES["default"]
    scheme = "postgresql" if connection.vendor == "postgresql" else "mysql"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return (f"{scheme}://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:"
            f"{db['PORT'] or (5432 if scheme == 'postgresql' else 3306)}/{db['NAME']}")


def _rows(cursor, table):
    columns = [c for c in synthetic_cloud.COLUMNS[table] if c != "created_at"]
    cursor.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {', '.join(columns)}")
    return [tuple(row) for row in cursor.fetchall()]


def test_the_same_seed_builds_the_same_cloud():
    ids = dict.fromkeys(synthetic_cloud.ID_TABLES, 0)
    names = {name: index for index, name in enumerate(
        [*synthetic_cloud.os_resource_classes.STANDARDS, *synthetic_cloud.CUSTOM_CLASSES])}
    traits = {name: index for index, name in enumerate(
        [*synthetic_cloud.STANDARD_TRAITS, *synthetic_cloud.CUSTOM_TRAITS])}
    types = {"INSTANCE": 1, "MIGRATION": 2}

    def built(seed):
        return synthetic_cloud.build(random.Random(seed), 300, 0.5, ids, names, traits, types).rows

    first, again, other = built(5), built(5), built(6)
    assert first == again
    assert first["resource_providers"] != other["resource_providers"]
    assert len(first["resource_providers"]) == 300


@needs_a_server_database
@pytest.mark.django_db(transaction=True)
def test_a_loaded_cloud_reads_back_through_the_api():
    out = io.StringIO()
    counts = synthetic_cloud.load(_url(), 400, 0.5, 11, out=out)
    assert counts["resource_providers"] == 400
    assert "loaded 400 providers" in out.getvalue()
    api = PlacementClient(mv="1.39")
    with connection.cursor() as cursor:
        providers = _rows(cursor, "resource_providers")
        inventories = _rows(cursor, "inventories")
        allocations = _rows(cursor, "allocations")
        cursor.execute("SELECT id, name FROM resource_classes")
        class_name = dict(cursor.fetchall())

    listed = api.get("/resource_providers").json()["resource_providers"]
    assert len(listed) == 400
    roots = {rp["uuid"] for rp in listed if rp["parent_provider_uuid"] is None}
    assert len(roots) == sum(1 for p in providers if p[5] is None)

    # Usages per provider, summed from the loader's rows, and never above capacity.
    uuid_of = {p[0]: p[1] for p in providers}
    used = defaultdict(Counter)
    for _, rp_id, _, class_id, amount in allocations:
        used[uuid_of[rp_id]][class_name[class_id]] += amount
    capacity = defaultdict(dict)
    for _, rp_id, class_id, total, reserved, _, _, _, ratio in inventories:
        capacity[uuid_of[rp_id]][class_name[class_id]] = int((total - reserved) * ratio)
    checked = 0
    for rp_uuid in sorted(uuid_of.values())[::7]:
        usages = api.get(f"/resource_providers/{rp_uuid}/usages").json()["usages"]
        assert {k: v for k, v in usages.items() if v} == dict(used[rp_uuid])
        for name, amount in usages.items():
            assert amount <= capacity[rp_uuid][name]
        checked += 1
    assert checked > 50

    # Every free gold node, and only those, is a candidate for a gold request.
    gold = [p for p in providers if p[2].startswith("ironic-")
            and capacity[p[1]].get("CUSTOM_BAREMETAL_GOLD")]
    free_gold = {p[1] for p in gold if not used[p[1]]}
    answer = api.get("/allocation_candidates?resources=CUSTOM_BAREMETAL_GOLD:1").json()
    assert set(answer["provider_summaries"]) == free_gold
    assert 0 < len(free_gold) < len(gold)


@needs_a_server_database
@pytest.mark.django_db(transaction=True)
def test_ids_the_loader_writes_are_the_ids_the_rows_hold():
    """As upstream's `db sync` leaves it: no resource class yet (VCPU's id is
    0, which MariaDB takes for "the next id" unless told otherwise), and no
    consumer type, with the type table's counter already moved on (a type
    made and deleted), so a type written under a chosen id must keep it."""
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM resource_classes")
        cursor.execute("INSERT INTO consumer_types (name, created_at) VALUES ('GONE', %s)",
                       [synthetic_cloud.NOW])
        cursor.execute("DELETE FROM consumer_types")
    synthetic_cloud.load(_url(), 200, 0.5, 3, out=io.StringIO())
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, id FROM resource_classes")
        class_id = dict(cursor.fetchall())
        cursor.execute("SELECT COUNT(*) FROM consumers c LEFT JOIN consumer_types t "
                       "ON t.id = c.consumer_type_id "
                       "WHERE c.consumer_type_id IS NOT NULL AND t.id IS NULL")
        (dangling,) = cursor.fetchone()
        cursor.execute("SELECT DISTINCT c.uuid FROM consumers c JOIN allocations a "
                       "ON a.consumer_id = c.uuid JOIN resource_classes r "
                       "ON r.id = a.resource_class_id WHERE r.name LIKE 'CUSTOM_BAREMETAL_%%'")
        node_consumers = sorted(row[0] for row in cursor.fetchall())
    assert class_id["VCPU"] == 0 and class_id["MEMORY_MB"] == 1
    assert dangling == 0
    # The loader takes every Ironic node for an instance: each such consumer
    # says INSTANCE, read through the API.
    api = PlacementClient(mv="1.38")
    assert len(node_consumers) > 10
    for consumer in node_consumers[::5]:
        assert api.get(f"/allocations/{consumer}").json()["consumer_type"] == "INSTANCE"
    # And a flat host's VCPU is VCPU.
    compute = api.get("/resource_providers?name=compute-000000").json()["resource_providers"][0]
    inventories = api.get(f"/resource_providers/{compute['uuid']}/inventories").json()
    assert inventories["inventories"]["VCPU"]["total"] == 48


@needs_a_server_database
@pytest.mark.django_db(transaction=True)
def test_a_database_with_providers_is_refused_in_one_line(capsys):
    synthetic_cloud.load(_url(), 20, 0.5, 1, out=io.StringIO())
    assert synthetic_cloud.main(["--database-url", _url(), "--providers", "20"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "already holds 20 resource providers" in error


def test_bad_arguments_exit_with_a_usage_line(capsys):
    with pytest.raises(SystemExit) as exit_info:
        synthetic_cloud.main(["--database-url", "postgresql://x/y", "--providers", "1"])
    assert exit_info.value.code == 2
    assert "--providers must be between" in capsys.readouterr().err
    assert synthetic_cloud.main(["--database-url", "sqlite:///x.db", "--providers", "10"]) == 2
    assert "only postgresql:// and mysql://" in capsys.readouterr().err
