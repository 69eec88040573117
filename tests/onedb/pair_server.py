"""Upstream, this service, or both behind the random proxy, as one server for the
conformance runner (conformance/targets.py, targets ``upstream`` and ``pair``).

    python tests/onedb/pair_server.py migrate --sides upstream,ours DATABASE_URL
    python tests/onedb/pair_server.py serve --sides upstream,ours DATABASE_URL PORT \
        [--settings JSON] [--seed N]

``migrate`` runs each side's own ``placement-manage db sync`` in order
(upstream's first: the set-up an operator adopting upstream's database has).
``serve`` starts each side's gunicorn on a Unix socket in a private
directory and the proxy on 127.0.0.1:PORT, in the foreground; SIGTERM stops
all of it.  With one side the proxy still stands in front, so both targets
are measured the same way.
"""
import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from pathlib import Path
from urllib import parse

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.onedb import harness  # noqa: E402
from tests.onedb.proxy import Proxy  # noqa: E402

SIDES = ("upstream", "ours")


class _Existing:
    """A database the runner made: harness.Database's interface, without creating it."""

    upstream_url = harness.Database.upstream_url

    def __init__(self, url):
        self.url = url
        self.backend = "mysql" if parse.urlsplit(url).scheme.startswith("mysql") else "postgres"
        self.name = parse.urlsplit(url).path.lstrip("/")


def _sides(text):
    sides = [s for s in text.split(",") if s]
    if not sides or any(s not in SIDES for s in sides):
        raise argparse.ArgumentTypeError(f"--sides: a comma list of {', '.join(SIDES)}")
    return sides


def migrate(args):
    db = _Existing(args.database_url)
    for side in args.sides:
        run = harness.run_upstream if side == "upstream" else harness.run_ours
        proc = run(db, "placement-manage", "db", "sync")
        sys.stdout.write(proc.stdout)
        sys.stderr.write(proc.stderr)
        if proc.returncode != 0:
            print(f"pair_server: {side} db sync failed ({proc.returncode})", file=sys.stderr)
            return 1
    return 0


def serve(args):
    db = _Existing(args.database_url)
    settings = json.loads(args.settings) if args.settings else {}
    sockets = tempfile.mkdtemp(prefix="h7-pair-")
    servers = [harness.Server(side, db, bind=f"unix:{sockets}/{side}.sock", settings=settings,
                              own_group=False) for side in args.sides]
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    proxy = None
    try:
        for server in servers:
            server.start()
        proxy = Proxy({s.kind: s.base for s in servers}, args.port, seed=args.seed).start()
        print(f"pair_server: {', '.join(args.sides)} behind http://127.0.0.1:{args.port}",
              flush=True)
        stopped.wait()
    finally:
        if proxy is not None:
            proxy.stop()
            print(f"pair_server: requests per side {dict(proxy.counts)}", flush=True)
        for server in servers:
            if server.proc is not None:
                sys.stdout.write(server.log_text()[-20000:])
            server.stop()
        shutil.rmtree(sockets, ignore_errors=True)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="pair_server.py")
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("migrate", "serve"):
        sub = commands.add_parser(name)
        sub.add_argument("--sides", type=_sides, default=list(SIDES))
        sub.add_argument("database_url")
        if name == "serve":
            sub.add_argument("port", type=int)
            sub.add_argument("--settings", help="the runner's server settings, as JSON")
            sub.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    return migrate(args) if args.command == "migrate" else serve(args)


if __name__ == "__main__":
    sys.exit(main())
