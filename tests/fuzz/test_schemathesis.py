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


def test_schemathesis_finds_nothing(service, tmp_path):
    fuzz_venv = cached_venv("placement-fuzz", ["requirements-fuzz.txt"], log=log)
    document = requests.get(service["url"] + "/api/schema/?format=json", timeout=30).json()
    schema_path = tmp_path / "openapi.json"
    schema_path.write_text(json.dumps(document))
    examples = os.environ.get("PLACEMENT_FUZZ_EXAMPLES", "25")
    started = time.monotonic()
    result = subprocess.run(
        [str(fuzz_venv / "bin" / "schemathesis"),
         "--config-file", str(HERE / "schemathesis.toml"),
         "run", str(schema_path), "--url", service["url"],
         "-H", f"X-Auth-Token: {service['token']}",
         "-H", "OpenStack-API-Version: placement latest",
         "--checks", "all", "--max-examples", examples, "--workers", "2", "--seed", "1"],
        cwd=tmp_path, capture_output=True, text=True, timeout=1500,
    )
    output = result.stdout + result.stderr
    sys.stdout.write(output[-6000:])
    generated = re.search(r"(\d+) generated", output)
    log(f"schemathesis: {generated.group(0) if generated else '?'} cases over "
        f"{len(document['paths'])} paths in {time.monotonic() - started:.0f}s")
    assert result.returncode == 0, output[-20000:]
    assert "5xx" not in re.sub(r"Expected:.*", "", output)
