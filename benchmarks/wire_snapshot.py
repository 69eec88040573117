"""Wire snapshot: the API's answers to a fixed list of requests, to compare two builds.

"Byte-identical API answers before and after" a refactoring, checked: a
demo cloud (``manage.py demo_cloud``, the Makefile's ``demo``) is built once
into a SQLite file; each build under test is served by gunicorn from its
own checkout on a fresh copy of that file, gets the same requests in the
same order (candidates at ten microversions from 1.10 to 1.39, good and
bad queries, /explain, provider lists and details, usages, traits,
resource classes, allocation reads and writes, and the error paths), and
the status, content type and body of every answer go to a JSON file.
What differs between two runs of one build is normalised, and nothing
else: request ids (``req-<uuid>``) and timestamps (ISO 8601 date-times).

Usage:
  .venv/bin/python benchmarks/wire_snapshot.py --demo-db /tmp/demo.sqlite3 --build-demo
  .venv/bin/python benchmarks/wire_snapshot.py --demo-db /tmp/demo.sqlite3 \\
      --checkout /path/to/build --port 20150 --out before.json
  .venv/bin/python benchmarks/wire_snapshot.py --compare before.json after.json

``--build-demo`` builds the demo database with ``--checkout``'s code;
``--compare`` prints each request whose answer differs and exits 1 if any.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
GUNICORN = os.path.join(ROOT, ".venv", "bin", "gunicorn")

REQUEST_ID = re.compile(r"req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?")

# Fixed uuids for what the requests create, so both runs create the same rows.
NEW_CONSUMER = "11111111-2222-4333-8444-555555555501"
NEW_CONSUMER_2 = "11111111-2222-4333-8444-555555555502"
NEW_PROVIDER = "11111111-2222-4333-8444-555555555503"
UNKNOWN = "99999999-9999-4999-8999-999999999999"

CANDIDATE_VERSIONS = ["1.10", "1.12", "1.16", "1.17", "1.21", "1.25", "1.29", "1.31", "1.35",
                      "1.39"]


def normalise(text: str) -> str:
    return DATE_TIME.sub("<date>", REQUEST_ID.sub("req-<id>", text))


class Server:
    """gunicorn serving ``checkout`` on a copy of the demo database."""

    def __init__(self, checkout, demo_db, port):
        self.checkout, self.port = os.path.abspath(checkout), port
        self.tmp = tempfile.mkdtemp(prefix="wire-snapshot-")
        self.db = os.path.join(self.tmp, "demo.sqlite3")
        shutil.copy(demo_db, self.db)
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{self.db}",
               "PLACEMENT_AUTH_STRATEGY": "noauth2", "PLACEMENT_STATE_PATH": self.tmp,
               "OS_PLACEMENT_CONFIG_DIR": self.tmp,
               "PLACEMENT_FLAVORS": "m1.small=VCPU:1,MEMORY_MB:2048,DISK_GB:20"}
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        self.process = subprocess.Popen(
            [GUNICORN, "placement_site.wsgi:application", "-b", f"127.0.0.1:{port}", "-w", "1",
             "--threads", "1", "--timeout", "120"],
            cwd=self.checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read()
                return
            except (urllib.error.URLError, ConnectionError, OSError):
                if self.process.poll() is not None:
                    raise SystemExit(f"wire_snapshot: the server from {checkout} exited")
                time.sleep(0.5)
        self.stop()
        raise SystemExit(f"wire_snapshot: no answer on port {port} within 120 s")

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def send(self, method, path, *, mv=None, token="admin", body=None, headers=None,
             raw_body=None):
        request_headers = dict(headers or {})
        if token is not None:
            request_headers["X-Auth-Token"] = token
        if mv is not None:
            request_headers["OpenStack-API-Version"] = f"placement {mv}"
        data = raw_body
        if body is not None:
            data = json.dumps(body).encode()
            request_headers.setdefault("Content-Type", "application/json")
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data,
                                         method=method, headers=request_headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, content_type, payload = (response.status,
                                                 response.headers.get("Content-Type"),
                                                 response.read())
        except urllib.error.HTTPError as error:
            status, content_type, payload = (error.code, error.headers.get("Content-Type"),
                                             error.read())
        return status, content_type, payload.decode("utf-8", "replace")


def requests_for(server):
    """The fixed list: (label, method, path, keyword arguments).  Uuids of
    the demo cloud are read from it first (the same file for both runs)."""
    _, _, listing = server.send("GET", "/resource_providers", mv="1.14")
    providers = sorted(p["uuid"] for p in json.loads(listing)["resource_providers"])
    first, second, third = providers[0], providers[1], providers[2]
    _, _, held = server.send("GET", f"/resource_providers/{first}/allocations")
    consumers = sorted(json.loads(held)["allocations"]) or [UNKNOWN]
    _, _, aggs = server.send("GET", f"/resource_providers/{first}/aggregates", mv="1.19")
    aggregate = (json.loads(aggs)["aggregates"] or [UNKNOWN])[0]
    out = []

    def add(label, method, path, **kwargs):
        out.append((label, method, path, kwargs))

    # The version document and microversion negotiation.
    add("root", "GET", "/", token=None)
    add("root 1.39", "GET", "/", mv="1.39", token=None)
    add("root latest", "GET", "/", mv="latest")
    add("root bad version", "GET", "/", mv="1.999")
    add("root garbage version", "GET", "/", mv="one")
    # Allocation candidates at ten microversions: good and bad queries.
    queries = [
        ("small", "resources=VCPU:1,MEMORY_MB:512"),
        ("with disk", "resources=VCPU:2,MEMORY_MB:2048,DISK_GB:20"),
        ("limit", "resources=VCPU:1&limit=2"),
        ("too big", "resources=VCPU:100000"),
        ("bad amount", "resources=VCPU:x"),
        ("unknown class", "resources=NOPE:1"),
        ("no resources", ""),
        ("trait", "resources=VCPU:1&required=HW_CPU_X86_AVX2"),
        ("aggregate", f"resources=VCPU:1&member_of={aggregate}"),
        ("granular", "resources1=VCPU:1&resources2=MEMORY_MB:512&group_policy=none"),
    ]
    for mv in CANDIDATE_VERSIONS:
        for name, query in queries:
            add(f"candidates {mv} {name}", "GET", f"/allocation_candidates?{query}", mv=mv)
    add("candidates 1.9", "GET", "/allocation_candidates?resources=VCPU:1", mv="1.9")
    add("candidates no token", "GET", "/allocation_candidates?resources=VCPU:1", mv="1.39",
        token=None)
    # /explain.
    add("explain", "GET", "/explain?resources=VCPU:1,MEMORY_MB:512")
    add("explain none fit", "GET", "/explain?resources=VCPU:100000")
    add("explain bad", "GET", "/explain?resources=VCPU:x")
    add("explain no token", "GET", "/explain?resources=VCPU:1", token=None)
    add("explain non-admin", "GET", "/explain?resources=VCPU:1", token="alice")
    add("explain post", "POST", "/explain", body={})
    # Provider lists and one provider's parts.
    for mv in ("1.0", "1.14", "1.18", "1.39"):
        add(f"providers {mv}", "GET", "/resource_providers", mv=mv)
    for name, query in (("name", "name=nope"), ("uuid", f"uuid={first}"),
                        ("member_of", f"member_of={aggregate}"),
                        ("resources", "resources=VCPU:1"),
                        ("required", "required=HW_CPU_X86_AVX2"), ("in_tree", f"in_tree={first}"),
                        ("bad filter", "bogus=1"), ("bad resources", "resources=VCPU")):
        add(f"providers ?{name}", "GET", f"/resource_providers?{query}", mv="1.39")
    for provider in (first, second, third):
        for part in ("", "/inventories", "/usages", "/traits", "/aggregates", "/allocations"):
            add(f"provider {provider[:8]}{part}", "GET", f"/resource_providers/{provider}{part}",
                mv="1.39")
    add("provider unknown", "GET", f"/resource_providers/{UNKNOWN}", mv="1.39")
    add("provider inventory VCPU", "GET", f"/resource_providers/{first}/inventories/VCPU",
        mv="1.39")
    add("provider inventory none", "GET", f"/resource_providers/{first}/inventories/NOPE")
    # Usages.
    add("usages project", "GET", "/usages?project_id=nope", mv="1.9")
    add("usages no project", "GET", "/usages", mv="1.9")
    add("usages 1.38", "GET", "/usages?project_id=nope", mv="1.38")
    # Traits and resource classes.
    add("traits", "GET", "/traits", mv="1.6")
    add("traits startswith", "GET", "/traits?name=startswith:HW_CPU_X86_AVX", mv="1.6")
    add("traits in", "GET", "/traits?name=in:HW_CPU_X86_AVX2,NOPE", mv="1.6")
    add("traits associated", "GET", "/traits?associated=true", mv="1.6")
    add("trait one", "GET", "/traits/HW_CPU_X86_AVX2", mv="1.6")
    add("trait unknown", "GET", "/traits/CUSTOM_NOPE", mv="1.6")
    add("resource classes", "GET", "/resource_classes", mv="1.2")
    add("resource class", "GET", "/resource_classes/VCPU", mv="1.2")
    add("resource class unknown", "GET", "/resource_classes/CUSTOM_NOPE", mv="1.2")
    # Allocation reads.
    for consumer in consumers[:3]:
        add(f"allocations {consumer[:8]}", "GET", f"/allocations/{consumer}", mv="1.38")
    add("allocations unknown", "GET", f"/allocations/{UNKNOWN}", mv="1.38")
    # Writes (the same fixed uuids in both runs), and their refusals.
    claim = {"allocations": {first: {"resources": {"VCPU": 1}}}, "project_id": "p",
             "user_id": "u", "consumer_generation": None}
    add("claim", "PUT", f"/allocations/{NEW_CONSUMER}", mv="1.28", body=claim)
    add("claim again stale", "PUT", f"/allocations/{NEW_CONSUMER}", mv="1.28", body=claim)
    add("claim read", "GET", f"/allocations/{NEW_CONSUMER}", mv="1.28")
    add("claim too big", "PUT", f"/allocations/{NEW_CONSUMER_2}", mv="1.28",
        body={**claim, "allocations": {first: {"resources": {"VCPU": 100000}}}})
    add("claim unknown provider", "PUT", f"/allocations/{NEW_CONSUMER_2}", mv="1.28",
        body={**claim, "allocations": {UNKNOWN: {"resources": {"VCPU": 1}}}})
    add("claim bad body", "PUT", f"/allocations/{NEW_CONSUMER_2}", mv="1.28",
        body={"allocations": []})
    add("claim no content type", "PUT", f"/allocations/{NEW_CONSUMER_2}", mv="1.28",
        raw_body=b"{}", headers={"Content-Type": "text/plain"})
    add("post allocations", "POST", "/allocations", mv="1.28", body={
        NEW_CONSUMER_2: {"allocations": {second: {"resources": {"MEMORY_MB": 512}}},
                         "project_id": "p", "user_id": "u", "consumer_generation": None}})
    add("provider usages after", "GET", f"/resource_providers/{first}/usages", mv="1.39")
    add("delete claim", "DELETE", f"/allocations/{NEW_CONSUMER}", mv="1.28")
    add("delete claim again", "DELETE", f"/allocations/{NEW_CONSUMER}", mv="1.28")
    add("create provider", "POST", "/resource_providers", mv="1.20",
        body={"name": "wire-snapshot", "uuid": NEW_PROVIDER})
    add("create provider again", "POST", "/resource_providers", mv="1.20",
        body={"name": "wire-snapshot", "uuid": NEW_PROVIDER})
    add("inventories put", "PUT", f"/resource_providers/{NEW_PROVIDER}/inventories", mv="1.26",
        body={"resource_provider_generation": 0,
              "inventories": {"VCPU": {"total": 8}, "MEMORY_MB": {"total": 4096}}})
    add("inventories stale", "PUT", f"/resource_providers/{NEW_PROVIDER}/inventories",
        mv="1.26", body={"resource_provider_generation": 0, "inventories": {}})
    add("traits put", "PUT", f"/resource_providers/{NEW_PROVIDER}/traits", mv="1.6",
        body={"resource_provider_generation": 1, "traits": ["HW_CPU_X86_AVX2"]})
    add("aggregates put", "PUT", f"/resource_providers/{NEW_PROVIDER}/aggregates", mv="1.19",
        body={"resource_provider_generation": 2, "aggregates": [aggregate]})
    add("new provider read", "GET", f"/resource_providers/{NEW_PROVIDER}", mv="1.39")
    add("delete provider", "DELETE", f"/resource_providers/{NEW_PROVIDER}", mv="1.39")
    # The error paths of the edge.
    add("unknown route", "GET", "/no_such_route", mv="1.39")
    add("unknown route no token", "GET", "/no_such_route", token=None)
    add("method not allowed", "PATCH", "/resource_providers", mv="1.39")
    add("not acceptable", "GET", "/resource_providers", mv="1.39",
        headers={"Accept": "text/html"})
    add("no token", "GET", "/resource_providers", mv="1.39", token=None)
    add("forbidden", "POST", "/resource_classes", mv="1.39", token="alice",
        body={"name": "CUSTOM_X"})
    add("bad json", "POST", "/resource_classes", mv="1.39", raw_body=b"{not json",
        headers={"Content-Type": "application/json"})
    # Operations endpoints (their error answers: /metrics's own body moves
    # with every request, its latency figures included).
    add("metrics no token", "GET", "/metrics", token=None)
    add("metrics non-admin", "GET", "/metrics", token="alice")
    add("history consumer", "GET", f"/history/consumers/{consumers[0]}")
    add("history provider", "GET", f"/history/providers/{first}?since=2000-01-01")
    add("history bad since", "GET", f"/history/consumers/{consumers[0]}?since=yesterday")
    add("history no token", "GET", f"/history/consumers/{consumers[0]}", token=None)
    add("healthcheck", "GET", "/healthcheck", token=None)
    return out


def snapshot(server):
    answers = []
    for label, method, path, kwargs in requests_for(server):
        status, content_type, body = server.send(method, path, **kwargs)
        answers.append({"request": f"{method} {path}", "label": label, "status": status,
                        "content_type": content_type, "body": normalise(body)})
    return answers


def compare(before_path, after_path) -> int:
    before = json.load(open(before_path, encoding="utf-8"))
    after = json.load(open(after_path, encoding="utf-8"))
    differing = 0
    if len(before) != len(after):
        print(f"{before_path}: {len(before)} answers; {after_path}: {len(after)}")
    for one, other in zip(before, after):
        if one != other:
            differing += 1
            print(f"DIFFERS: {one['label']}: {one['request']}")
            for key in ("request", "status", "content_type", "body"):
                if one[key] != other[key]:
                    print(f"  {key}: {one[key]!r:.300}\n  {' ' * len(key)}  {other[key]!r:.300}")
    same = min(len(before), len(after)) - differing
    print(f"{same} of {max(len(before), len(after))} answers identical")
    return 0 if differing == 0 and len(before) == len(after) else 1


def build_demo(checkout, demo_db):
    if os.path.exists(demo_db):
        os.remove(demo_db)
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{os.path.abspath(demo_db)}",
           "PLACEMENT_STATE_PATH": tempfile.mkdtemp(prefix="wire-snapshot-")}
    for command in (["migrate", "--noinput", "-v0"], ["demo_cloud"]):
        subprocess.run([PYTHON, "manage.py", *command], cwd=checkout, env=env, check=True,
                       stdout=subprocess.DEVNULL, timeout=1800)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo-db", help="the demo cloud's SQLite file")
    parser.add_argument("--build-demo", action="store_true", help="build --demo-db first")
    parser.add_argument("--checkout", default=ROOT, help="the build to serve (default: this one)")
    parser.add_argument("--port", type=int, default=20150)
    parser.add_argument("--out", help="where to write the answers (JSON)")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if not args.demo_db:
        parser.error("--demo-db is required (or --compare)")
    if args.build_demo:
        build_demo(args.checkout, args.demo_db)
        if not args.out:
            return 0
    if not args.out:
        parser.error("--out is required")
    server = Server(args.checkout, args.demo_db, args.port)
    try:
        answers = snapshot(server)
    finally:
        server.stop()
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(answers, handle, indent=1)
    print(f"{len(answers)} answers from {args.checkout} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
