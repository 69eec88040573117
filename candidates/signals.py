"""Signals the candidates app sends for apps above it (which it may not import).

``no_candidates``: ``GET /allocation_candidates`` is answering without any
allocation request.  Sent with ``request`` (the Django request) and
``candidate_request`` (the parsed ``CandidateRequest``), and only then: an
answer with candidates sends nothing.  Receivers must not raise;
planning.failures records it.
"""
from django.dispatch import Signal

no_candidates = Signal()
