"""Signals the allocations app sends for apps above it (which it may not import).

``claim_refused``: a ``PUT /allocations/{c}`` or ``POST /allocations`` was
refused for capacity (a 409 that is not a generation conflict).  Sent with
``request`` (the Django request) and ``refusal`` (``CapacityRefused.refusal``:
reason, provider, resource_class, requested, used, capacity).  Receivers
must not raise; planning.failures records it.
"""
from django.dispatch import Signal

claim_refused = Signal()
