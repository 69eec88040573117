"""The time one request spends inside the database, for benchmarks.

With PLACEMENT_TIMING_HEADERS on, every statement of an API request runs
through a connection execute wrapper that adds up its wall time (sending,
the server's work, receiving the rows into the driver; not turning them into
Python objects), and the answer carries ``X-Placement-DB-Time`` (ms) and
``X-Placement-DB-Queries``. ``make bench`` sets it to report the database's
share of each request; off by default, so production answers carry nothing.
"""
import time
from contextlib import contextmanager

from django.db import connection


class StatementTimer:
    def __init__(self):
        self.seconds = 0.0
        self.count = 0

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.perf_counter() - started
            self.count += 1


@contextmanager
def timed_statements():
    timer = StatementTimer()
    with connection.execute_wrapper(timer):
        yield timer


def add_headers(response, timer: StatementTimer) -> None:
    response["X-Placement-DB-Time"] = f"{timer.seconds * 1000:.1f}"
    response["X-Placement-DB-Queries"] = str(timer.count)
