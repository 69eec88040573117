"""gunicorn settings: ``gunicorn placement_site.wsgi:application -c placement_site/gunicorn_hooks.py``.

The worker setup (``make run`` and the documented deployment) is threaded
workers. A sync worker serves one connection at a time, so a client that
sends its headers and then nothing held a whole worker until the worker
timeout killed it (four such clients left ``make run``'s two workers deaf
for 45 s). Here each worker accepts connections in its main loop: a
connection that sends nothing waits there without a thread, and a request
whose body does not come frees its thread after
``PLACEMENT_CLIENT_TIMEOUT`` seconds (placement_site/wsgi.py) with a 400.
What a trickling client (a byte every few seconds) can still hold is a
thread per connection; in production put a buffering proxy in front
(nginx with its default ``proxy_request_buffering on`` and
``client_header_timeout`` / ``client_body_timeout``, or HAProxy with
``timeout http-request``), which hands the application whole requests only.

A dead worker's gauge files are marked so a scrape no longer counts them;
its counters and histograms stay (they are totals since start).
"""

worker_class = "gthread"
# Threads per worker: requests served at once by one worker process.
threads = 8
# A worker whose main loop stops (not a busy thread) is replaced after this.
timeout = 30
# Kept-alive connections wait in the main loop, not in a thread.
keepalive = 5


def child_exit(server, worker):
    import os

    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
