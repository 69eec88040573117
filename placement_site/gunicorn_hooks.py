"""gunicorn settings for multi-process metrics (``gunicorn -c placement_site/gunicorn_hooks.py``).

A dead worker's gauge files are marked so a scrape no longer counts them;
its counters and histograms stay (they are totals since start).
"""


def child_exit(server, worker):
    import os

    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
