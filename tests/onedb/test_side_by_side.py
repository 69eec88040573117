"""Upstream's gabbi files through a proxy that picks upstream or this service at
random for each request, both on one database: every test that passes
against upstream alone must pass there too.

Runs conformance/run twice (``--target upstream``, then ``--target pair``)
on the files of ONEDB_GABBI_LIST (a ``--list`` name or file; default
tests/onedb/gabbi-ci.txt, five files; ``all`` for the 79), on the backend's
server.  Both runs' counts are printed.
"""
import json
import os
import subprocess

import pytest

from tests.onedb.harness import DB_PREFIX, PROJECT_DIR, SERVERS

pytestmark = pytest.mark.onedb
GABBI_CI = PROJECT_DIR / "tests" / "onedb" / "gabbi-ci.txt"


def _conformance(target, backend, tmp_path):
    out = tmp_path / f"{target}.json"
    admin = SERVERS[backend] + ("/postgres" if backend == "postgres" else "/")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}
    env.update(CONFORMANCE_DB_URL=admin, CONFORMANCE_DB_PREFIX=f"{DB_PREFIX}_conf_",
               CONFORMANCE_PORT_RANGE=os.environ.get("ONEDB_CONFORMANCE_PORTS", "20750-20799"))
    if os.environ.get("CONFORMANCE_CACHE_DIR"):
        env["CONFORMANCE_CACHE_DIR"] = os.environ["CONFORMANCE_CACHE_DIR"]
    proc = subprocess.run(
        [str(PROJECT_DIR / "conformance" / "run"), "--target", target,
         "--list", os.environ.get("ONEDB_GABBI_LIST", str(GABBI_CI)), "--jobs", "2",
         "--json", str(out), "--log-dir", str(tmp_path / f"{target}-logs")],
        cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=1800)
    summary = [line for line in proc.stdout.splitlines() if line.startswith("CONFORMANCE")]
    print(f"\n[onedb gabbi] {backend} {target}: {summary or proc.stderr[-1500:]}")
    assert out.exists(), proc.stdout[-2000:] + proc.stderr[-3000:]
    results = json.loads(out.read_text())
    return {(f["file"], t["name"]): t for f in results["files"] for t in f["tests"]}


def test_gabbi_files_through_a_random_proxy_pass_where_upstream_passes(backend, tmp_path):
    alone = _conformance("upstream", backend, tmp_path)
    pair = _conformance("pair", backend, tmp_path)
    passing = {key for key, test in alone.items() if test["status"] == "pass"}
    broken = sorted(f"{key[0]}::{key[1]}: {pair.get(key, {}).get('message', 'not run')[:300]}"
                    for key in passing if pair.get(key, {}).get("status") != "pass")
    print(f"[onedb gabbi] {backend}: upstream alone passes {len(passing)} of {len(alone)}; "
          f"through the pair {len(passing) - len(broken)} of those pass, "
          f"{sum(t['status'] == 'pass' for t in pair.values())} of {len(pair)} in all")
    assert passing, "upstream alone passed nothing: the run is broken"
    assert not broken, f"{len(broken)} pass upstream alone, not side by side:\n" + \
        "\n".join(broken[:30])
