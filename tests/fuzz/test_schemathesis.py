"""Schemathesis, with every check, over the service's own OpenAPI document.

The service runs behind keystonemiddleware with a real Keystone (as in
tests/keystone), so the authentication checks mean something: a made-up
token must get a 401. The fuzzer calls with a service user's token (the
role every Placement operation allows). Bounded by PLACEMENT_FUZZ_EXAMPLES
per operation and phase (default 25): a few minutes on two cores.
"""
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.cached_venv import cached_venv
from tests.keystone.environment import Keystone, PlacementServer, ensure_venv, log, stop

pytestmark = pytest.mark.fuzz

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    venv = ensure_venv()
    keystone = Keystone(venv, tmp_path_factory.mktemp("keystone"))
    keystone.setup()
    admin = keystone.token("admin", project="admin")
    service_project = keystone.ensure_project(admin, "service")
    keystone.add_user(admin, "placement", service_project, ["service"])
    keystone.add_user(admin, "nova", service_project, ["service", "admin"])
    server = PlacementServer(venv, tmp_path_factory.mktemp("placement"), keystone.url,
                             PLACEMENT_ENFORCE_NEW_DEFAULTS="true",
                             PLACEMENT_ENFORCE_SCOPE="true")
    try:
        server.setup()
        yield {"url": server.url, "token": keystone.token("nova", project="service"),
               "workdir": server.workdir}
    finally:
        stop(server.process)
        stop(keystone.process)


def _run_schemathesis(fuzz_venv, schema_path, service, examples, seed, cwd):
    # One worker: CPython 3.11's ast.parse can fail when threads call it at
    # once ("AST constructor recursion depth mismatch", cpython#106905), and
    # the tool's case generation calls it; with two workers that crashed it
    # in 2 of 4 runs here.
    result = subprocess.run(
        [str(fuzz_venv / "bin" / "schemathesis"),
         "--config-file", str(HERE / "schemathesis.toml"),
         "run", str(schema_path), "--url", service["url"],
         "-H", f"X-Auth-Token: {service['token']}",
         "-H", "OpenStack-API-Version: placement latest",
         "--checks", "all", "--max-examples", examples, "--workers", "1", "--seed", str(seed)],
        cwd=cwd, capture_output=True, text=True, timeout=1500,
    )
    return result.returncode, result.stdout + result.stderr


def crashed_inside_schemathesis(returncode, output):
    """A traceback through schemathesis's own code with no finding is the
    tool crashing while it generates cases (seen in CI, in its coverage
    phase), not a finding about this service: exit 2, or exit 1 with only
    errors and no FAILURES section."""
    inside = "site-packages/schemathesis/" in output and "Traceback" in output
    if returncode == 2:
        return inside
    # Its errors (not failures) are counted as "Runtime Error" and exit 1:
    # seen in CI as CPython 3.11.7's "AST constructor recursion depth
    # mismatch" raised from ast.parse under the tool's own case generation.
    return returncode == 1 and inside and "Runtime Error" in output and "FAILURES" not in output


def test_schemathesis_finds_nothing(service, tmp_path):
    fuzz_venv = cached_venv("placement-fuzz", ["requirements-fuzz.txt"], log=log)
    document = requests.get(service["url"] + "/api/schema/?format=json", timeout=30).json()
    schema_path = tmp_path / "openapi.json"
    schema_path.write_text(json.dumps(document))
    examples = os.environ.get("PLACEMENT_FUZZ_EXAMPLES", "25")
    started = time.monotonic()
    returncode, output = _run_schemathesis(fuzz_venv, schema_path, service, examples, 1, tmp_path)
    if crashed_inside_schemathesis(returncode, output):
        # One more run with another seed, so the tool's crash does not hide
        # the operations it never reached; a second crash fails the test.
        log("schemathesis crashed inside its own code; running again with seed 2:\n"
            + output[-3000:])
        returncode, output = _run_schemathesis(fuzz_venv, schema_path, service, examples, 2,
                                               tmp_path)
    sys.stdout.write(output[-6000:])
    generated = re.search(r"(\d+) generated", output)
    log(f"schemathesis: {generated.group(0) if generated else '?'} cases over "
        f"{len(document['paths'])} paths in {time.monotonic() - started:.0f}s")
    assert returncode == 0, output[-20000:]
    assert "5xx" not in re.sub(r"Expected:.*", "", output)


def test_a_runtime_error_inside_the_tool_is_a_crash_not_a_finding():
    # The shape of CI's output: the tool's own traceback counted as an error.
    output = ("Traceback (most recent call last):\n"
              '  File "/v/lib/python3.11/site-packages/schemathesis/generation/drivers.py"\n'
              "SystemError: AST constructor recursion depth mismatch\n"
              "Errors:\n  Runtime Error: 1\n")
    assert crashed_inside_schemathesis(1, output)
    assert crashed_inside_schemathesis(2, output)
    assert not crashed_inside_schemathesis(1, output + "=== FAILURES ===\n")
    assert not crashed_inside_schemathesis(1, "Failures:\n  Server error\n")
