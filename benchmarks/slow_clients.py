"""Slow and idle clients against a real gunicorn: can they starve it?

Starts gunicorn on a scratch SQLite database with the given worker setup,
opens ``--slow`` connections that send a POST's headers promising a body
and then nothing, and ``--idle`` connections that send nothing at all, then
times ``GET /`` from a fresh client and waits for what each slow client is
answered. Prints the figures.

    .venv/bin/python benchmarks/slow_clients.py --port 19510              # make run's setup
    .venv/bin/python benchmarks/slow_clients.py --port 19510 --sync       # -w 2 sync workers
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADERS = (b"POST /resource_providers HTTP/1.1\r\nHost: placement\r\n"
           b"Content-Type: application/json\r\nContent-Length: 100\r\n"
           b"X-Auth-Token: admin\r\nOpenStack-API-Version: placement 1.39\r\n\r\n")


def start(port, args, env_extra, log):
    db = Path(tempfile.mkdtemp()) / "db.sqlite3"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLACEMENT_")}
    env.update(DATABASE_URL=f"sqlite:///{db}", PLACEMENT_AUTH_STRATEGY="noauth2",
               PLACEMENT_LOG_LEVEL="WARNING", PLACEMENT_REQUEST_LOG_LEVEL="WARNING", **env_extra)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    proc = subprocess.Popen([str(ROOT / ".venv/bin/gunicorn"), "placement_site.wsgi:application",
                             "-b", f"127.0.0.1:{port}", *args],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            get_root(port, timeout=2)
            return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("gunicorn did not start")


def get_root(port, timeout):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: placement\r\nConnection: close\r\n\r\n")
        return read_status(sock)


def read_status(sock):
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    line = data.split(b"\r\n", 1)[0].decode()
    return int(line.split()[1]) if line.startswith("HTTP/") else None


def slow_connections(port, slow, idle):
    conns = []
    for _ in range(slow):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(HEADERS)
        conns.append(sock)
    idles = [socket.create_connection(("127.0.0.1", port)) for _ in range(idle)]
    return conns, idles


def measure(port, args, *, slow=4, idle=0, env_extra=None, wait=120):
    """{"root_seconds", "root_status", "slow": [(seconds, status) ...]}"""
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as log:
        proc = start(port, args, env_extra or {}, log)
        try:
            conns, idles = slow_connections(port, slow, idle)
            time.sleep(0.5)  # the slow requests reach the workers
            started = time.monotonic()
            try:
                status = get_root(port, timeout=wait)
            except OSError:
                status = None
            root = time.monotonic() - started
            answers = []
            for sock in conns:
                sock.settimeout(max(1.0, wait - (time.monotonic() - started)))
                try:
                    answer = read_status(sock)
                except OSError:
                    answer = None
                answers.append((round(time.monotonic() - started, 2), answer))
                sock.close()
            for sock in idles:
                sock.close()
            return {"root_seconds": round(root, 3), "root_status": status, "slow": answers}
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--sync", action="store_true",
                        help="-w 2 sync workers (the setup before the gthread one)")
    parser.add_argument("--slow", type=int, default=4)
    parser.add_argument("--idle", type=int, default=0)
    args = parser.parse_args()
    gunicorn = (["-w", "2"] if args.sync
                else ["-c", "placement_site/gunicorn_hooks.py", "-w", "2"])
    result = measure(args.port, gunicorn, slow=args.slow, idle=args.idle)
    print(json.dumps({"gunicorn": gunicorn, "slow_clients": args.slow, "idle_clients": args.idle,
                      **result}))


if __name__ == "__main__":
    main()
