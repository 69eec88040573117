"""Issue 36 item 5: the claims race and the one-consumer race, with upstream
alone, this service alone, and both serving one database at once.

The figures (answers per side, over-commits, lost writes, 5xx) are printed
(``-s``) and written to ``$ONEDB_FIGURES`` when set.  Upstream alone may
over-commit or lose writes (its own bugs): the pair must produce nothing
upstream alone does not also produce on the same race, and none of this
service's own writes may be lost, over-commit or fail with a 5xx.
"""
import json
import os

import pytest

from tests.onedb import racing
from tests.onedb.harness import Server, run_ours, run_upstream

pytestmark = pytest.mark.onedb

RACES = {"claims": racing.claims_race, "consumer": racing.consumer_race}


def _serve(setup, new_db):
    """(databases made, server kinds) for a set-up; the servers are started by the caller."""
    db = new_db(setup)
    if setup in ("upstream", "pair"):
        proc = run_upstream(db, "placement-manage", "db", "sync")
        assert proc.returncode == 0, proc.stderr[-2000:]
    if setup in ("ours", "pair"):
        proc = run_ours(db, "placement-manage", "db", "sync")
        assert proc.returncode == 0, proc.stderr[-2000:]
    kinds = {"upstream": ["upstream"], "ours": ["ours"], "pair": ["upstream", "ours"]}[setup]
    return db, kinds


def _run(race, setup, new_db):
    db, kinds = _serve(setup, new_db)
    servers = [Server(kind, db, workers=2, threads=4) for kind in kinds]
    try:
        for server in servers:
            server.start()
        figures = RACES[race]([(s.kind, s.base) for s in servers])
    finally:
        for server in servers:
            server.stop()
    return figures.as_dict()


def _record(backend, race, figures):
    print(f"\n[onedb race] {backend} {race}: {json.dumps(figures)}")
    path = os.environ.get("ONEDB_FIGURES")
    if path:
        with open(path, "a") as out:
            out.write(json.dumps({"backend": backend, "race": race, **figures}) + "\n")


def _clean(figures, side):
    statuses = figures["answers"].get(side, {})
    return {"5xx": sum(n for code, n in statuses.items() if int(code) >= 500 or int(code) == 0),
            "lost": figures["lost"].get(side, 0)}


@pytest.mark.parametrize("race", sorted(RACES))
def test_race_pair_no_worse_than_upstream_alone(race, backend, new_db):
    alone = {setup: _run(race, setup, new_db) for setup in ("upstream", "ours")}
    pair = _run(race, "pair", new_db)
    for setup, figures in [*alone.items(), ("pair", pair)]:
        _record(backend, race, {"setup": setup, **figures})

    # This service alone: nothing lost, nothing over-committed, no 5xx.
    assert _clean(alone["ours"], "ours") == {"5xx": 0, "lost": 0}, alone["ours"]
    assert alone["ours"]["overcommit"] == 0, alone["ours"]
    # Its own writes beside upstream's: the same.
    assert _clean(pair, "ours") == {"5xx": 0, "lost": 0}, pair
    # Upstream's side of the pair: only what upstream alone also does.
    if _clean(pair, "upstream")["5xx"]:
        assert _clean(alone["upstream"], "upstream")["5xx"], (pair, alone["upstream"])
    if _clean(pair, "upstream")["lost"]:
        assert _clean(alone["upstream"], "upstream")["lost"], (pair, alone["upstream"])
    if pair["overcommit"]:
        assert alone["upstream"]["overcommit"], (pair, alone["upstream"])
    if race == "claims":
        for figures in (alone["ours"], pair):
            answers = [code for side in figures["answers"].values() for code in side]
            assert set(answers) <= {204, 409}, figures
