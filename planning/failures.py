"""Scheduling failures, captured when they happen and explained.

Two events are recorded (the receivers below are connected in
``PlanningConfig.ready``; the apps that send them cannot import this one):

- ``GET /allocation_candidates`` answering with no candidates
  (``candidates.signals.no_candidates``): the query string, microversion,
  caller, request id and global request id (``X-OpenStack-Request-ID``,
  which Nova sends, so a Nova log line leads straight to the record), and
  the explain service's answer computed once the answer has gone out
  (``candidates.explain.explain``), from which the reason is taken: the
  kind of the constraint that emptied a request group, or the
  request-wide one that removed the last tree;
- a claim refused for capacity (``allocations.signals.claim_refused``): a
  409 on ``PUT /allocations/{c}`` or ``POST /allocations`` that is not a
  generation conflict, with the provider, class and numbers it failed on.

Bounded, so that a storm of empty answers cannot hurt the service: at
most ``PLACEMENT_FAILURE_EXPLAIN_PER_MINUTE`` explanations per minute and
process, and no more than ``EXPLAIN_SHARE`` of the process's time spent on
them (past either a record is stored without one, reason ``not_explained``);
the stored query is cut to ``PLACEMENT_FAILURE_QUERY_MAX_CHARS``; records
older than ``PLACEMENT_FAILURE_RETENTION_DAYS`` and beyond the newest
``PLACEMENT_FAILURE_MAX_RECORDS`` are pruned every ``PRUNE_EVERY`` records a
process writes (and by ``manage.py scheduling_failures --prune``).  A
request that finds candidates, or a claim that succeeds, does nothing here.
Every failure counts in ``placement_scheduling_failures_total{kind, reason}``.

A failure in the capture itself is logged and never changes the answer.
"""
from __future__ import annotations

import collections
import logging
import textwrap
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Max, Min
from django.utils import timezone

from candidates import explain
from candidates.explanation import CLASS_REASONS, Explanation
from placement_core import errors, metrics, retention
from placement_core.texttable import table, when
from planning.models import SchedulingFailure
from planning.params import check_known, whole_number
from providers.models import ResourceProvider

LOG = logging.getLogger(__name__)

# The reasons, a fixed set (the label values of the metric): the explain
# service's constraint kinds, and the claim refusals'.
CANDIDATE_REASONS = (
    "resource_class_missing", "min_unit", "max_unit", "step_size", "capacity", "required",
    "any_of_traits", "forbidden", "member_of", "in_tree", "root_required", "group_policy",
    "same_subtree", "combined_capacity", "limit", "no_providers", "not_explained", "unknown",
)
CLAIM_REASONS = ("no_inventory", "unit_constraints", "capacity")
REASONS = tuple(sorted(set(CANDIDATE_REASONS) | set(CLAIM_REASONS)))
KINDS = ("candidates", "claim")
PRUNE_EVERY = 50
SHOW = 5  # providers per explanation step kept in a record
# At most this share of a process's time goes to explaining: an explanation
# searches every tree again, seconds at 100,000 providers, and in a full
# cloud every answer is empty, so a count a minute alone would let the
# explanations take a worker whole.
EXPLAIN_SHARE = 0.1
_FULL_CREDIT = 60 * EXPLAIN_SHARE  # seconds: a minute's share


class _RateLimit:
    """At most ``per_minute()`` grants in any 60 s, in this process, and the
    work granted held to ``EXPLAIN_SHARE`` of the time: ``spent`` takes a
    piece of work's seconds from a credit that grows back at that share of
    the clock (up to a minute's worth); nothing is granted while it is spent."""

    def __init__(self, per_minute):
        self.per_minute = per_minute
        self.lock = threading.Lock()
        self.granted = collections.deque()
        self.credit, self.credit_at = _FULL_CREDIT, None

    def _refill(self, now):
        if self.credit_at is not None:
            self.credit = min(_FULL_CREDIT, self.credit + (now - self.credit_at) * EXPLAIN_SHARE)
        self.credit_at = now

    def allow(self, now=None) -> bool:
        limit = self.per_minute()
        if limit <= 0:
            return False
        now = time.monotonic() if now is None else now
        with self.lock:
            self._refill(now)
            if self.credit <= 0:
                return False
            while self.granted and now - self.granted[0] >= 60:
                self.granted.popleft()
            if len(self.granted) >= limit:
                return False
            self.granted.append(now)
            return True

    def spent(self, seconds: float, now=None):
        """A granted piece of work took ``seconds``."""
        now = time.monotonic() if now is None else now
        with self.lock:
            self._refill(now)
            self.credit -= seconds

    def reset(self):
        with self.lock:
            self.granted.clear()
            self.credit, self.credit_at = _FULL_CREDIT, None


explanations = _RateLimit(lambda: settings.PLACEMENT_FAILURE_EXPLAIN_PER_MINUTE)
_written = {"count": 0}
_written_lock = threading.Lock()


def reason_of(result: Explanation) -> str:
    """The constraint kind that emptied the search: the step that left no
    provider or tree in the first group that cannot be met, else the
    request-wide step that removed the last tree."""
    if result.candidates:
        return "unknown"  # found by the time it was explained
    for group in result.groups:
        if group.trees_left:
            continue
        steps = group.steps + group.tree_steps
        emptied = [s for s in steps if s.left == 0] or sorted(
            steps, key=lambda s: -s.removed_count)
        if emptied:
            return _bounded(emptied[0].kind)
        return "no_providers"
    for step in result.steps:
        if step.left == 0:
            return _bounded(step.kind)
    if result.steps:
        return _bounded(result.steps[-1].kind)
    return "unknown"


def _bounded(kind: str) -> str:
    return kind if kind in CANDIDATE_REASONS else "unknown"


def _cut(text: str) -> tuple[str, bool]:
    limit = settings.PLACEMENT_FAILURE_QUERY_MAX_CHARS
    return (text, False) if len(text) <= limit else (text[:limit], True)


def _caller(request) -> dict:
    context = getattr(request, "placement_context", None)
    version = getattr(request, "placement_mv", None)
    return {
        "project_id": (getattr(context, "project_id", None) or "")[:255],
        "user_id": (getattr(context, "user_id", None) or "")[:255],
        "request_id": getattr(request, "placement_request_id", "") or "",
        "global_request_id": getattr(request, "placement_global_request_id", None) or "",
        "microversion": str(version) if version is not None else "",
    }


def _store(**fields):
    # Its own transaction: a claim's has been rolled back by now, and a
    # record must not be lost with (or hold up) anything else.  On
    # PostgreSQL the commit does not wait for the disk: losing the last
    # records to a crash is better than every empty answer paying a flush.
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
        SchedulingFailure.objects.create(created_at=timezone.now(), **fields)
    with _written_lock:
        _written["count"] += 1
        due = _written["count"] % PRUNE_EVERY == 0
    if due:
        prune()


def on_no_candidates(sender, *, request, candidate_request, **kwargs):
    """Record an answer without candidates (candidates.signals.no_candidates),
    once the answer has gone out: the explanation searches every tree, and
    Nova should not wait for it."""
    if not settings.PLACEMENT_FAILURE_CAPTURE:
        return
    query, truncated = _cut(request.META.get("QUERY_STRING", ""))
    caller = _caller(request)

    def record():
        reason, summary, explanation = "not_explained", "", None
        if explanations.allow():
            started = time.monotonic()
            try:
                result = explain.explain(candidate_request, show=SHOW)
            finally:
                explanations.spent(time.monotonic() - started)
            explanation = result.as_dict()
            reason, summary = reason_of(result), result.verdict[:512]
        metrics.SCHEDULING_FAILURES.labels("candidates", reason).inc()
        _store(kind="candidates", reason=reason, summary=summary, query=query,
               query_truncated=truncated, explanation=explanation, **caller)

    _after_response(record)


# Work put off until the server has sent the answer: Django sends
# request_finished when the WSGI server closes the response, on the thread
# that served the request.
_deferred = threading.local()


def _after_response(job):
    jobs = getattr(_deferred, "jobs", None)
    if jobs is None:
        jobs = _deferred.jobs = []
    jobs.append(job)


def run_after_response(sender, **kwargs):
    """request_finished receiver: the jobs this thread put off, each on its own."""
    jobs = getattr(_deferred, "jobs", None)
    if not jobs:
        return
    _deferred.jobs = []
    for job in jobs:
        try:
            job()
        except Exception:  # noqa: BLE001 - nobody is left to answer; the log must say it
            LOG.exception("could not record a GET /allocation_candidates without candidates")
    # Django closed an obsolete connection before this ran; a job may have
    # opened a new one. Close it as Django would (not inside a test's
    # transaction, which is never obsolete).
    if not connection.in_atomic_block:
        connection.close_if_unusable_or_obsolete()


def on_claim_refused(sender, *, request, refusal, **kwargs):
    """Record a claim refused for capacity (allocations.signals.claim_refused)."""
    if not settings.PLACEMENT_FAILURE_CAPTURE:
        return
    try:
        reason = refusal.get("reason") if refusal.get("reason") in CLAIM_REASONS else "capacity"
        body = request.body.decode("utf-8", "replace") if request.body else ""
        query, truncated = _cut(f"{request.method} {request.path} {body}")
        provider = refusal.get("provider")
        # The provider by name, as the explanations of empty answers name them.
        name = ResourceProvider.objects.filter(uuid=provider).values_list(
            "name", flat=True).first() or provider
        summary = f"{name}: {claim_reason(refusal)['reason']}"
        metrics.SCHEDULING_FAILURES.labels("claim", reason).inc()
        _store(kind="claim", reason=reason, summary=summary[:512], query=query,
               query_truncated=truncated, explanation=dict(refusal), **_caller(request))
    except Exception:  # noqa: BLE001 - the 409 must go out whatever happens here
        LOG.exception("could not record a claim refused for capacity")


def claim_reason(refusal: dict) -> dict:
    """A refused claim as an explain failure: {"kind", "resource_class",
    "numbers", "reason"}, the kind one of ``CLASS_REASONS`` (for
    unit_constraints the bound that was broken) and the reason its sentence,
    so that a claim reads as the explanations do; kind "unknown" for a
    record kept before the bounds were (its numbers as they are)."""
    rc, asked = refusal.get("resource_class"), refusal.get("requested")
    capacity, used = refusal.get("capacity"), refusal.get("used")
    numbers = {"asked": asked}
    if refusal.get("reason") == "no_inventory":
        kind = "resource_class_missing"
    else:
        broken = [(k, bound) for k, bound, test in (
            ("max_unit", refusal.get("max_unit"), lambda b: asked > b),
            ("min_unit", refusal.get("min_unit"), lambda b: asked < b),
            ("step_size", refusal.get("step_size"), lambda b: b and asked % b))
            if bound is not None and asked is not None and test(bound)]
        if broken:
            kind, numbers[broken[0][0]] = broken[0]
        elif refusal.get("reason") == "unit_constraints" or None in (capacity, used, asked):
            return {"kind": "unknown", "resource_class": rc, "numbers": {},
                    "reason": f"asked {asked} {rc}, used {used}, capacity {capacity}"}
        else:
            kind = "capacity"
            numbers.update(free=capacity - used, capacity=capacity, used=used)
    return {"kind": kind, "resource_class": rc, "numbers": numbers,
            "reason": CLASS_REASONS[kind].format(rc=rc, **numbers)}


def reasons_of(record: dict) -> list:
    """Every per-class failure a record's explanation states, as
    {"kind", "resource_class", "numbers"}: the claim's one, or those of an
    empty answer's steps and closest providers (for showing the numbers in
    their unit wherever its sentences appear)."""
    explanation = record.get("explanation") or {}
    if record.get("kind") == "claim":
        why = claim_reason(explanation)
        return [why] if why["kind"] in CLASS_REASONS else []
    out = []
    for group in explanation.get("groups", []):
        for step in group.get("steps", []) + group.get("tree_steps", []):
            # A tree's removal names its class on the step only.
            out += [{"kind": step["kind"],
                     "resource_class": r.get("resource_class") or step.get("resource_class"),
                     "numbers": r.get("numbers") or {}} for r in step.get("removed", [])]
        for closest in group.get("closest", []):
            out += [{"kind": r["kind"], "resource_class": r.get("resource_class"),
                     "numbers": r.get("numbers") or {}} for r in closest.get("reasons", [])]
    return [r for r in out if r["kind"] in CLASS_REASONS and r["resource_class"]]


def prune(*, now=None, dry_run=False) -> int:
    """Drop records past the retention and beyond the newest MAX_RECORDS;
    with ``dry_run`` only count them."""
    return retention.prune(SchedulingFailure.objects, field="created_at",
                           days=settings.PLACEMENT_FAILURE_RETENTION_DAYS,
                           keep=settings.PLACEMENT_FAILURE_MAX_RECORDS, now=now, dry_run=dry_run)


# -- Reading them back ----------------------------------------------------------------

PARAMETERS = {
    "global_request_id": "Only the records of this X-OpenStack-Request-ID (req-<uuid>).",
    "request_id": "Only the record of this request id (req-<uuid>).",
    "kind": "candidates or claim.",
    "reason": "Only this reason.",
    "hours": "The period grouped and listed, in hours back from now (default 24, at most "
             "8760).",
    "limit": "Records listed, newest first (default 50, at most 1000).",
}


def arguments(query) -> dict:
    """Keyword arguments of :func:`report` from a query string (a QueryDict);
    raises ``errors.BadRequest``."""
    check_known(query, PARAMETERS)
    out = {}
    for key, low, high in (("hours", 1, 8760), ("limit", 0, 1000)):
        text = query.get(key)
        if text is None:
            continue
        out[key] = whole_number(key, text, low, high)
    for key, allowed in (("kind", KINDS), ("reason", REASONS)):
        value = query.get(key)
        if value:
            if value not in allowed:
                raise errors.BadRequest(f"Invalid query string parameters: {key} must be one "
                                        f"of {', '.join(allowed)}.")
            out[key] = value
    for key in ("global_request_id", "request_id"):
        value = (query.get(key) or "").strip()
        if value:
            if len(value) > 64:
                raise errors.BadRequest(f"Invalid query string parameters: {key} is too long.")
            out[key] = value
    return out


def record_dict(record: SchedulingFailure, *, with_explanation=True) -> dict:
    out = {"id": record.id, "created_at": record.created_at.isoformat(), "kind": record.kind,
           "reason": record.reason, "summary": record.summary, "query": record.query,
           "query_truncated": record.query_truncated, "microversion": record.microversion,
           "project_id": record.project_id, "user_id": record.user_id,
           "request_id": record.request_id, "global_request_id": record.global_request_id}
    if with_explanation:
        out["explanation"] = record.explanation
    return out


def report(*, hours=24, limit=50, kind=None, reason=None, global_request_id=None,
           request_id=None, now=None) -> dict:
    """Failures of the last ``hours``: grouped by kind and reason with an
    hourly (or, past two days, daily) trend, and the newest records.  A
    global or plain request id looks its records up whatever their age."""
    now = now or timezone.now()
    records = SchedulingFailure.objects.all()
    if global_request_id or request_id:
        if global_request_id:
            records = records.filter(global_request_id=global_request_id)
        if request_id:
            records = records.filter(request_id=request_id)
    else:
        records = records.filter(created_at__gte=now - timedelta(hours=hours))
    if kind:
        records = records.filter(kind=kind)
    if reason:
        records = records.filter(reason=reason)
    bucket_hours = 1 if hours <= 48 else 24
    buckets = -(-hours // bucket_hours)
    # The trend's buckets are whole (50 hours: three days); the period counted is not.
    start = now - timedelta(hours=buckets * bucket_hours)
    since = now - timedelta(hours=hours)
    groups = {}
    for k, r, n, first, last in records.values("kind", "reason").annotate(
            n=Count("id"), first=Min("created_at"), last=Max("created_at")).values_list(
            "kind", "reason", "n", "first", "last"):
        groups[(k, r)] = {"kind": k, "reason": r, "count": n, "last": last.isoformat(),
                          "trend": [0] * buckets}
        since = min(since, first)  # a look-up by id counts records of any age
    # The trend from the records' times, read once (bounded by the period).
    for k, r, at in records.filter(created_at__gte=start).values_list(
            "kind", "reason", "created_at").iterator():
        i = int((at - start).total_seconds() // (bucket_hours * 3600))
        if 0 <= i < buckets and (k, r) in groups:
            groups[(k, r)]["trend"][i] += 1
    listed = [record_dict(f) for f in records.order_by("-created_at", "-id")[:limit]]
    return {
        "hours": hours, "bucket_hours": bucket_hours, "since": since.isoformat(),
        "total": sum(g["count"] for g in groups.values()),
        "by_reason": sorted(groups.values(), key=lambda g: (-g["count"], g["kind"],
                                                            g["reason"])),
        "failures": listed,
    }


SPARKS = " ▁▂▃▄▅▆▇█"


def _spark(counts) -> str:
    """A trend as one character a bucket (blank for none), scaled to its
    largest bucket; the counts are in --json."""
    top = max(counts, default=0)
    return "".join(SPARKS[0] if not n else SPARKS[max(1, round(8 * n / top))] for n in counts)


def as_text(result: dict, *, asked: str = "") -> str:
    """The groups and the newest records as tables (times in UTC, request
    ids shortened: whole in --json), each record's summary under it."""
    lines = [f"scheduling failures: {result['total']} since {when(result['since'])} UTC"
             + (f" ({asked})" if asked else "")]
    if result["by_reason"]:
        lines += table(
            ["kind", "reason", "count", "last (UTC)",
             f"trend, {result['bucket_hours']} h a mark, oldest first"],
            [[g["kind"], g["reason"], g["count"], when(g["last"]), _spark(g["trend"])]
             for g in result["by_reason"]], right=(2,), max_cell=60)
    if result["failures"]:
        lines += ["", "newest:"]
        rows = table(["time (UTC)", "kind", "reason", "request", "project", "query"],
                     [[when(f["created_at"]), f["kind"], f["reason"], f["request_id"][:12],
                       f["project_id"] or "-", f["query"]] for f in result["failures"]])
        lines.append(rows[0])
        for f, row in zip(result["failures"], rows[1:]):
            lines.append(row)
            if f["summary"]:
                lines += textwrap.wrap(f["summary"], 100, initial_indent="    ",
                                       subsequent_indent="    ")
    return "\n".join(lines) + "\n"
