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
import uuid

import pytest
import requests

from tests.onedb import racing
from tests.onedb.cloud import PROJECT, USER, allocate
from tests.onedb.harness import Database, Server, run_ours, run_upstream

pytestmark = pytest.mark.onedb

RACES = {"claims": racing.claims_race, "consumer": racing.consumer_race}
SETUPS = ("upstream", "ours", "pair")


def _figures_of(setup, backend):
    """{race: figures} for one set-up, on a fresh database made the set-up's way."""
    db = Database(backend, f"race_{setup}")
    try:
        if setup in ("upstream", "pair"):
            proc = run_upstream(db, "placement-manage", "db", "sync")
            assert proc.returncode == 0, proc.stderr[-2000:]
        if setup in ("ours", "pair"):
            proc = run_ours(db, "placement-manage", "db", "sync")
            assert proc.returncode == 0, proc.stderr[-2000:]
        kinds = {"upstream": ["upstream"], "ours": ["ours"], "pair": ["upstream", "ours"]}[setup]
        servers = [Server(kind, db, workers=2, threads=4) for kind in kinds]
        try:
            for server in servers:
                server.start()
            bases = [(s.kind, s.base) for s in servers]
            return {race: run(bases).as_dict() for race, run in RACES.items()}
        finally:
            for server in servers:
                server.stop()
    finally:
        db.drop()


@pytest.fixture(scope="module")
def figures(backend):
    """setup -> {race: figures}, or the exception that set-up ended with."""
    measured = {}
    for setup in SETUPS:
        try:
            measured[setup] = _figures_of(setup, backend)
        except Exception as exc:  # noqa: BLE001 - reported by each test that needs it
            measured[setup] = exc
            continue
        for race, numbers in measured[setup].items():
            _record(backend, race, {"setup": setup, **numbers})
    return measured


def _measured(figures, setup):
    if isinstance(figures[setup], Exception):
        raise AssertionError(f"{setup}: {figures[setup]}") from figures[setup]
    return figures[setup]


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
def test_this_service_alone_loses_nothing(race, figures):
    ours = _measured(figures, "ours")[race]
    assert _clean(ours, "ours") == {"5xx": 0, "lost": 0}, ours
    assert ours["overcommit"] == 0 and ours["short_rounds"] == [], ours
    if race == "claims":
        assert set(ours["answers"]["ours"]) <= {204, 409}, ours


@pytest.mark.parametrize("race", sorted(RACES))
def test_pair_no_worse_than_upstream_alone(race, figures):
    upstream = _measured(figures, "upstream")[race]
    pair = _measured(figures, "pair")[race]
    # This service's own writes beside upstream's: nothing lost, no 5xx.
    assert _clean(pair, "ours") == {"5xx": 0, "lost": 0}, pair
    # Upstream's side of the pair, and the pair as a whole: only what
    # upstream alone also does on the same race.
    for fault in ("5xx", "lost"):
        if _clean(pair, "upstream")[fault]:
            assert _clean(upstream, "upstream")[fault], (fault, pair, upstream)
    if pair["overcommit"]:
        assert upstream["overcommit"], ("over-commit", pair, upstream)
    if pair["short_rounds"]:
        assert upstream["short_rounds"], ("fewer claims than capacity", pair, upstream)
    if race == "claims":
        assert set(pair["answers"].get("ours", {})) <= {204, 409}, pair


def test_each_side_refuses_what_the_other_filled(backend, new_db):
    """Capacity one side committed is capacity the other side sees: a provider
    filled through one server refuses a further claim through the other."""
    db = new_db("filled")
    for run in (run_upstream, run_ours):
        proc = run(db, "placement-manage", "db", "sync")
        assert proc.returncode == 0, proc.stderr[-2000:]
    with Server("upstream", db) as upstream, Server("ours", db) as ours:
        for filler, other in ((upstream, ours), (ours, upstream)):
            rp = racing.provider(filler.base, 2)
            for _ in range(2):
                allocate(filler.base, str(uuid.uuid4()), {rp: {"VCPU": 1}}, consumer_type=None)
            answer = requests.put(f"{other.base}/allocations/{uuid.uuid4()}", timeout=60, json={
                "allocations": {rp: {"resources": {"VCPU": 1}}}, "project_id": PROJECT,
                "user_id": USER, "consumer_generation": None}, headers={
                "x-auth-token": "admin", "openstack-api-version": "placement 1.28"})
            assert answer.status_code == 409, (filler.kind, other.kind, answer.text)
            assert "exceed the capacity" in answer.text, (filler.kind, other.kind, answer.text)
