"""Client side of the race tests: send a list of requests from a pool of threads.

Used in-process (``run_jobs``) and as a separate process::

    python tests/concurrency/claim_worker.py '<json job>'

job: {"base": url, "threads": n, "start_at": epoch seconds, "requests":
[{"method", "path", "mv", "body"}]}. Prints one JSON list of
[status, error code, detail] (one per request, in order) on stdout.
"""
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import requests

TIMEOUT = 60


def _send(session_factory, base, req):
    session = session_factory()
    headers = {
        "x-auth-token": "admin",
        "accept": "application/json",
        "openstack-api-version": f"placement {req.get('mv', '1.28')}",
    }
    try:
        response = session.request(
            req["method"], base + req["path"], json=req.get("body"), headers=headers,
            timeout=TIMEOUT,
        )
    except requests.RequestException as exc:  # a hang or a dropped connection
        return [0, "client-error", repr(exc)]
    code, detail = None, ""
    if response.content:
        try:
            err = response.json().get("errors", [{}])[0]
            code, detail = err.get("code"), err.get("detail", "")
        except ValueError:
            detail = response.text[:200]
    return [response.status_code, code, detail]


def run_jobs(job):
    import threading

    local = threading.local()

    def session_factory():
        if not hasattr(local, "session"):
            local.session = requests.Session()
        return local.session

    delay = job.get("start_at", 0) - time.time()
    if delay > 0:
        time.sleep(delay)
    with ThreadPoolExecutor(max_workers=job["threads"]) as pool:
        return list(pool.map(lambda r: _send(session_factory, job["base"], r), job["requests"]))


if __name__ == "__main__":
    print(json.dumps(run_jobs(json.loads(sys.argv[1]))))
