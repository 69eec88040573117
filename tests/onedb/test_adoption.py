"""Adopting upstream's database in place, serving it side by side, and switching back.

Every read compares the two servers' JSON answers for the whole cloud
(tests/onedb/cloud.py ``snapshot``): every provider, inventory, trait,
aggregate, allocation and usage, plus a few candidate queries.
"""
import pytest

from tests.onedb import catalog, cloud
from tests.onedb.harness import Server, run_ours, run_upstream

pytestmark = pytest.mark.onedb


def _same(left, right, names):
    a, b = cloud.snapshot(left.base), cloud.snapshot(right.base)
    lines = cloud.differences(a, b, names)
    assert not lines, f"{len(lines)} reads differ:\n" + "\n".join(lines[:20])
    return a


def _sync(run, db):
    proc = run(db, "placement-manage", "db", "sync")
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_upstream_database_adopted_in_place_and_served_side_by_side(new_db):
    db = new_db("adopt")
    _sync(run_upstream, db)
    with Server("upstream", db) as upstream:
        made = cloud.build(upstream.base, "up")
    before = catalog.definition(db), catalog.rows(db)

    _sync(run_ours, db)
    assert (catalog.definition(db), catalog.rows(db)) == before, \
        "this service's db sync changed upstream's tables"
    _sync(run_ours, db)  # idempotent
    assert (catalog.definition(db), catalog.rows(db)) == before

    with Server("upstream", db) as upstream, Server("ours", db) as ours:
        names = ("upstream", "ours")
        _same(upstream, ours, names)
        cloud.more_writes(ours.base, made, "ours1")  # through this service ...
        _same(upstream, ours, names)  # ... read back through upstream
        again = cloud.build(upstream.base, "up2")  # through upstream ...
        cloud.more_writes(upstream.base, again, "up3")
        _same(upstream, ours, names)  # ... read back through this service

    # Switch back: upstream alone goes on writing; then this service again.
    with Server("upstream", db) as upstream:
        cloud.more_writes(upstream.base, made, "up4")
        seen = cloud.snapshot(upstream.base)
    with Server("ours", db) as ours:
        lines = cloud.differences(seen, cloud.snapshot(ours.base), ("upstream", "ours"))
        assert not lines, "\n".join(lines[:20])
        cloud.more_writes(ours.base, again, "ours2")


def test_switch_back_to_upstream_on_a_database_this_service_made(new_db):
    db = new_db("back")
    _sync(run_ours, db)
    with Server("ours", db) as ours:
        made = cloud.build(ours.base, "ours")
        cloud.more_writes(ours.base, made, "ours1")
        seen = cloud.snapshot(ours.base)

    with Server("upstream", db) as upstream:  # rolled back: upstream 16.0.0 alone
        lines = cloud.differences(seen, cloud.snapshot(upstream.base), ("ours", "upstream"))
        assert not lines, f"{len(lines)} reads differ:\n" + "\n".join(lines[:20])
        later = cloud.build(upstream.base, "up")
        cloud.more_writes(upstream.base, later, "up1")
        seen = cloud.snapshot(upstream.base)

    with Server("ours", db) as ours:  # and forward again
        lines = cloud.differences(seen, cloud.snapshot(ours.base), ("upstream", "ours"))
        assert not lines, f"{len(lines)} reads differ:\n" + "\n".join(lines[:20])
        cloud.more_writes(ours.base, made, "ours2")
        with Server("upstream", db) as upstream:
            _same(upstream, ours, ("upstream", "ours"))
