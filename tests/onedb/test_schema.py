"""A fresh database made by this service's `db sync` is the one upstream's makes.

Upstream 16.0.0's own ``placement-manage db sync`` into one database, this
service's into another; the catalog's description of upstream's tables must
be identical and ``alembic_version`` equal.  Then upstream's own tools on
this service's database find nothing to do.
"""
import pytest

from tests.onedb import catalog
from tests.onedb.harness import run_ours, run_upstream

pytestmark = pytest.mark.onedb


def _sync_both(new_db):
    theirs, ours = new_db("upstream"), new_db("ours")
    proc = run_upstream(theirs, "placement-manage", "db", "sync")
    assert proc.returncode == 0, proc.stderr[-2000:]
    proc = run_ours(ours, "placement-manage", "db", "sync")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return theirs, ours


def test_db_sync_makes_upstreams_tables_exactly(new_db):
    theirs, ours = _sync_both(new_db)
    assert set(catalog.UPSTREAM_TABLES) <= set(catalog.tables(theirs))
    missing = set(catalog.UPSTREAM_TABLES) - set(catalog.tables(ours))
    lines = [f"table missing here: {name}" for name in sorted(missing)]
    lines += catalog.differences(catalog.definition(theirs), catalog.definition(ours))
    assert not lines, f"{len(lines)} differences:\n" + "\n".join(lines)
    assert ours.query("SELECT version_num FROM alembic_version") == \
        theirs.query("SELECT version_num FROM alembic_version")


def test_upstreams_tools_find_nothing_to_do_here(new_db):
    _theirs, ours = _sync_both(new_db)
    before = catalog.definition(ours), catalog.rows(ours), catalog.tables(ours)
    proc = run_upstream(ours, "placement-manage", "db", "sync")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (catalog.definition(ours), catalog.rows(ours), catalog.tables(ours)) == before
    proc = run_upstream(ours, "placement-status", "upgrade", "check")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Failure" not in proc.stdout and "Warning" not in proc.stdout, proc.stdout
