"""``placement-api`` run as a program: a small threaded HTTP server for a
try-out or a test (``placement-api --port 8778``).  Production servers
load the same script as a WSGI file (Apache mod_wsgi, uWSGI)."""
import argparse
import os
import socketserver
import sys
from wsgiref import simple_server


class _ThreadingServer(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True


class _QuietHandler(simple_server.WSGIRequestHandler):
    # The service logs each request itself (placement_core.requestlog).
    def log_message(self, format, *args):
        pass


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="placement-api",
        description="Serve the Placement API with a small threaded server (for production, "
                    "load this script as a WSGI file with Apache mod_wsgi or uWSGI).")
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument("--config-file", action="append", default=[],
                        help="placement.conf to read (repeatable)")
    parser.add_argument("--config-dir", action="append", default=[],
                        help="a directory whose *.conf files are read after them (repeatable)")
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:
        parser.error(f"--port {args.port}: expected 1 to 65535")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.config_file:
        os.environ["PLACEMENT_CONFIG_FILES"] = os.pathsep.join(
            os.path.abspath(f) for f in args.config_file)
    if args.config_dir:
        os.environ["PLACEMENT_CONFIG_DIRS"] = os.pathsep.join(
            os.path.abspath(d) for d in args.config_dir)
    from placement.wsgi.api import application

    try:
        server = simple_server.make_server(args.host, args.port, application,
                                           server_class=_ThreadingServer,
                                           handler_class=_QuietHandler)
    except OSError as exc:
        print(f"placement-api: cannot listen on {args.host}:{args.port}: {exc.strerror}",
              file=sys.stderr)
        return 1
    print(f"placement-api: serving on http://{args.host}:{args.port}/", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
