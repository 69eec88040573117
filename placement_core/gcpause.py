"""The cyclic garbage collector held off while an API request is served.

A large answer (allocation candidates on a nested cloud: 2,000 requests and
7,000 summaries) builds a few hundred thousand dicts and lists that all stay
alive until the body is encoded.  Every automatic collection walks all of
them again; on the nested bench that was about 190 ms of a 400 ms request.
Those objects form no reference cycles, so reference counting frees them the
moment the response is done, and the collector, running again after the
request, finds what little cyclic garbage the request left.

Process-wide, so it counts the requests in flight (threaded workers): the
collector comes back when the last one ends, and only if it was on before
the first began (an operator who turned it off keeps it off).
"""
import gc
import threading
from contextlib import contextmanager

_lock = threading.Lock()
_active = 0
_resume = False


@contextmanager
def collector_paused():
    global _active, _resume
    with _lock:
        if _active == 0:
            _resume = gc.isenabled()
            gc.disable()
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0 and _resume:
                gc.enable()
