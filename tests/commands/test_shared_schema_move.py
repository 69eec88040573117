"""An install of this service's earlier schema moves onto upstream's tables, keeping every row.

The earlier code itself (the last commit before the move, taken from this
repository's history with ``git archive``) migrates a scratch database,
loads the demo cloud with its fortnight of history and exports it; this
code then migrates the same database and exports again: the two exports
are equal, the history and usage snapshots are the same rows, and the
resource class ids are upstream's.  On the database DATABASE_URL names a
server of (a scratch database beside the test one), else on SQLite.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import os_resource_classes
import pytest
from django.db import connection

from placement_core import shared_schema
from tests.cached_venv import PROJECT_DIR

pytestmark = pytest.mark.django_db

# The last commit whose migrations leave the earlier layout (main, before
# the shared schema).
BEFORE = "93913ac"

CUSTOM = """
from allocations.services import allocations_set
from providers import inventory_services
from providers.models import ResourceProvider
from resource_classes.services import resource_class_create
resource_class_create(name="CUSTOM_MOVE_A")
resource_class_create(name="CUSTOM_MOVE_B")
rp = ResourceProvider.objects.filter(parent__isnull=True).order_by("id").first()
inventory_services.inventory_create(
    provider_uuid=rp.uuid, resource_class="CUSTOM_MOVE_B", generation=rp.generation,
    spec=inventory_services.InventorySpec(total=8, reserved=0, min_unit=1, max_unit=8,
                                          step_size=1, allocation_ratio=1.0),
    reserved_may_equal_total=False)
allocations_set(consumer_uuid="5e1f0000-0000-4000-8000-000000000001",
                allocations={rp.uuid: {"CUSTOM_MOVE_B": 2}}, project_id="p", user_id="u")
"""


@pytest.fixture
def scratch_url(tmp_path):
    """A database of its own for the move (beside the test database, on the
    same server), dropped afterwards."""
    settings = connection.settings_dict
    name = f"{settings['NAME']}_move"
    auth = settings["USER"] + (f":{settings['PASSWORD']}" if settings["PASSWORD"] else "")
    if connection.vendor == "postgresql":
        import psycopg

        def admin(statement):
            with psycopg.connect(host=settings["HOST"], port=settings["PORT"] or 5432,
                                 user=settings["USER"], password=settings["PASSWORD"] or None,
                                 dbname="postgres", autocommit=True) as conn:
                conn.execute(statement)

        admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin(f'CREATE DATABASE "{name}"')
        yield f"postgres://{auth}@{settings['HOST']}:{settings['PORT'] or 5432}/{name}"
        admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    elif connection.vendor == "mysql":
        with connection.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS `{name}`")
            cursor.execute(f"CREATE DATABASE `{name}`")
        yield f"mysql://{auth}@{settings['HOST']}:{settings['PORT'] or 3306}/{name}"
        with connection.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS `{name}`")
    else:
        yield f"sqlite:///{tmp_path / 'move.sqlite3'}"


# The checkout is installed editable (make venv): its finder would hand an
# earlier tree the modules that tree lacks (planning.admin) from this one.
# Each run imports only from its own working directory.
OWN_TREE_ONLY = ("import sys; sys.meta_path[:] = [f for f in sys.meta_path "
                 "if '__editable__' not in getattr(f, '__module__', '')]\n")


def _manage(cwd, url, *args):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PLACEMENT_", "OS_")) and k != "DJANGO_SETTINGS_MODULE"}
    env.update(DATABASE_URL=url, PLACEMENT_ALLOCATION_HISTORY="true",
               PLACEMENT_STATE_PATH=str(Path(cwd) / "state"))
    launch = OWN_TREE_ONLY + ("import runpy; sys.argv = ['manage.py', *sys.argv[1:]]; "
                              "runpy.run_path('manage.py', run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", launch, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc.stdout


def _own_rows(url, cwd):
    """The history and usage snapshot rows, as the earlier and this code both read them."""
    script = ("import json, django; django.setup(); from django.db import connection\n"
              "out = {}\n"
              "with connection.cursor() as c:\n"
              "    for t, cols in (('allocation_changes', 'consumer_uuid, provider_uuid, "
              "resource_class, amount_before, amount_after, source, owner_change'),\n"
              "                    ('usage_snapshots', 'taken_at, resource_class, "
              "aggregate_uuid, capacity, used')):\n"
              "        c.execute(f'SELECT {cols} FROM {t} ORDER BY id')\n"
              "        out[t] = [[str(v) for v in r] for r in c.fetchall()]\n"
              "print(json.dumps(out))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PLACEMENT_", "OS_"))}
    env.update(DATABASE_URL=url, DJANGO_SETTINGS_MODULE="placement_site.settings",
               PLACEMENT_STATE_PATH=str(Path(cwd) / "state"))
    proc = subprocess.run([sys.executable, "-c", OWN_TREE_ONLY + script], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


@pytest.fixture
def earlier_tree(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is needed to take the earlier code from the history")
    found = subprocess.run(["git", "-C", str(PROJECT_DIR), "cat-file", "-e", f"{BEFORE}^{{commit}}"],
                           capture_output=True)
    if found.returncode != 0:
        pytest.skip(f"commit {BEFORE} is not in this clone (a shallow one?)")
    tree = tmp_path / "earlier"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(PROJECT_DIR), "archive", BEFORE],
                             capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree


def test_the_demo_cloud_and_its_history_survive_the_move(tmp_path, earlier_tree, scratch_url):
    url = scratch_url
    _manage(earlier_tree, url, "migrate", "-v0")
    _manage(earlier_tree, url, "demo_cloud")
    before = tmp_path / "before.json"
    # Two custom classes (the second one used) to see their ids renumbered.
    _manage(earlier_tree, url, "shell", "-c", CUSTOM)
    _manage(earlier_tree, url, "export_json", "-o", str(before))
    own_before = _own_rows(url, earlier_tree)

    _manage(PROJECT_DIR, url, "migrate", "-v0")
    after = tmp_path / "after.json"
    _manage(PROJECT_DIR, url, "export_json", "-o", str(after))

    exported = json.loads(before.read_text()), json.loads(after.read_text())
    # The earlier export listed a provider's traits and aggregates in link
    # order (its links had ids); upstream's link tables have none: sorted.
    for rp in exported[0]["resource_providers"]:
        rp["traits"].sort()
        rp["aggregates"].sort()
    assert exported[0]["consumers"] and exported[0]["resource_providers"]
    assert exported[0] == exported[1]
    assert _own_rows(url, PROJECT_DIR) == own_before
    assert own_before["allocation_changes"] and own_before["usage_snapshots"]

    rows = _class_ids(url)
    standard = {name: index for index, name in enumerate(os_resource_classes.STANDARDS)}
    assert all(rows[name] == standard[name] for name in rows if name in standard)
    custom = sorted(rows[name] for name in rows if name not in standard)
    assert len(custom) == 2 and custom == list(range(shared_schema.FIRST_CUSTOM_CLASS_ID,
                                shared_schema.FIRST_CUSTOM_CLASS_ID + len(custom)))


def _class_ids(url):
    script = ("import json, django; django.setup()\n"
              "from resource_classes.models import ResourceClass\n"
              "print(json.dumps(dict(ResourceClass.objects.values_list('name', 'id'))))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PLACEMENT_", "OS_"))}
    env.update(DATABASE_URL=url, DJANGO_SETTINGS_MODULE="placement_site.settings")
    proc = subprocess.run([sys.executable, "-c", script], cwd=PROJECT_DIR, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)
