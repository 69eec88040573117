"""Start writers at the same moment, each on its own database connection.

Shared by the PostgreSQL-only concurrency tests: a barrier lines the
threads up so their transactions really overlap.
"""
import threading

from django.db import connection


def race(calls, *, status_of=()):
    """Run the callables at once; return their results in order.

    An exception of a type in ``status_of`` becomes that exception's
    ``status`` in the results instead of being lost with its thread.
    """
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait()
            results[index] = call()
        except status_of as exc:
            results[index] = exc.status
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
