"""The demo cloud's trouble: a few scheduling failures and audit findings,
so that the console's Failures and Audit pages (and ``scheduling_failures``,
``audit_allocations``) have something to show on first look.

Scheduling failures go the way Nova's would: each request is read and
answered by the same code as the API (``candidates.query.parse_strict`` and
``candidates.engine.find_candidates``; ``allocations.services.allocations_replace``
refusing the claim), the views' signals are sent with it
(``candidates.signals.no_candidates``, ``allocations.signals.claim_refused``)
and ``planning.failures.run_after_response`` runs the recording put off,
explanation included, as after a real answer.  Only the time is simulated:
each record is stamped a few hours back within the last day (the default
period of the page and the command).

Audit findings are what no service writes, by construction: what a crash
or a hand edit leaves behind.  So they are written to the tables directly:
a consumer left with no allocations (a boot that died between creating it
and claiming), and an instance still holding local disk on its host after
the host's disks moved to the shared pool (an allocation of a class the
provider has no inventory of).  ``audit_allocations --fix`` (or the Audit
page's buttons) repairs both.
"""
from __future__ import annotations

import datetime
import json

from django.test import RequestFactory
from django.utils import timezone

from allocations import signals as allocation_signals
from allocations.models import Allocation, Consumer, ConsumerType, Project, User
from allocations.services import CapacityRefused, ConsumerAllocations, allocations_replace
from candidates import engine
from candidates import signals as candidate_signals
from candidates.query import parse_strict
from placement_core.context import RequestContext
from placement_core.microversion import Version
from planning import failures
from planning.models import SchedulingFailure
from providers.models import ResourceProvider
from resource_classes.models import ResourceClass

MICROVERSION = Version(1, 39)  # what a recent Nova sends
NOVA = RequestContext(user_id="nova", project_id="service", roles=["admin", "service"])

# (hours ago, query): what Nova asked that found nothing. 32 VCPU in one
# NUMA cell (max_unit 16); a GPU flavor on a cloud without GPUs; AVX-512,
# which no host has.
EMPTY_QUERIES = (
    (20, "resources=VCPU:32,MEMORY_MB:65536,DISK_GB:80"),
    (13, "resources=VGPU:1,VCPU:4,MEMORY_MB:16384"),
    (6, "resources=VCPU:4,MEMORY_MB:8192&required=HW_CPU_X86_AVX512F"),
    (2, "resources=VCPU:32,MEMORY_MB:65536,DISK_GB:80"),
)
# Hours ago of the claim that lost a race for compute-03's last dedicated cores.
CLAIM_HOURS_AGO = 4


def seed_trouble(uuid_of, *, now=None) -> dict:
    """Write the failures and the findings; ``uuid_of(*parts)`` gives the
    demo's stable uuids. Returns {"failures": n, "findings": n}."""
    now = now or timezone.now()
    failures = 0
    for n, (hours, query) in enumerate(EMPTY_QUERIES):
        failures += _empty_answer(query, request_id=uuid_of("request", "empty", n),
                                  at=now - datetime.timedelta(hours=hours))
    failures += _refused_claim(uuid_of, at=now - datetime.timedelta(hours=CLAIM_HOURS_AGO))
    return {"failures": failures, "findings": _findings(uuid_of, now)}


def _request(factory_call, request_id):
    """A request as the edge leaves it for the views: who asks, which
    microversion, which request ids."""
    request = factory_call(RequestFactory())
    request.placement_context = NOVA
    request.placement_mv = MICROVERSION
    request.placement_request_id = f"req-{request_id}"
    request.placement_global_request_id = f"req-{request_id[::-1]}"
    return request


def _stamped(record, at) -> int:
    """Give the records ``record()`` writes the simulated moment; how many."""
    mark = SchedulingFailure.objects.order_by("-id").values_list("id", flat=True).first() or 0
    record()
    return SchedulingFailure.objects.filter(id__gt=mark).update(created_at=at)


def _empty_answer(query, *, request_id, at) -> int:
    def record():
        # The query string as Nova writes it (not re-encoded).
        request = _request(lambda rf: rf.get(f"/allocation_candidates?{query}"), request_id)
        parsed = parse_strict(request.GET, MICROVERSION)
        if engine.find_candidates(parsed).allocation_requests:
            return  # the demo cloud can meet it after all: nothing to record
        candidate_signals.no_candidates.send(sender=engine, request=request,
                                             candidate_request=parsed)
        # What request_finished runs for planning after a response, without
        # Django's other receivers: they close the connection, which inside
        # a caller's transaction (a test's) breaks it.
        failures.run_after_response(sender=type(request))

    return _stamped(record, at)


def _refused_claim(uuid_of, *, at) -> int:
    """An instance claimed on compute-03's first NUMA cell, whose two
    dedicated cores are taken: the 409 Nova gets when two schedulers picked
    the same host."""
    host, cell = uuid_of("compute-03"), uuid_of("compute-03-numa0")
    consumer = uuid_of("instance", "lost-race")
    allocations = {host: {"MEMORY_MB": 8192}, cell: {"PCPU": 2, "VCPU": 4},
                   uuid_of("storage-pool"): {"DISK_GB": 80}}
    body = {"allocations": {rp: {"resources": res} for rp, res in allocations.items()},
            "project_id": "project-a", "user_id": "demo-user", "consumer_generation": None,
            "consumer_type": "INSTANCE"}

    def record():
        request = _request(lambda rf: rf.put(f"/allocations/{consumer}", json.dumps(body),
                                             content_type="application/json"),
                           uuid_of("request", "claim"))
        try:
            allocations_replace(requests=[ConsumerAllocations(
                uuid=consumer, allocations=allocations, project_id="project-a",
                user_id="demo-user", generation=None, consumer_type="INSTANCE")])
        except CapacityRefused as exc:
            allocation_signals.claim_refused.send(sender=CapacityRefused, request=request,
                                                  refusal=exc.refusal)

    return _stamped(record, at)


def _findings(uuid_of, now) -> int:
    """The two leftovers the audit finds (written directly: no service
    writes them)."""
    instance = ConsumerType.objects.get_or_create(name="INSTANCE")[0]
    project = Project.objects.get_or_create(external_id="project-b")[0]
    user = User.objects.get_or_create(external_id="demo-user")[0]
    empty = uuid_of("instance", "died-booting")
    Consumer.objects.create(uuid=empty, project=project, user=user, consumer_type=instance,
                            generation=0)
    then = now - datetime.timedelta(hours=30)
    Consumer.objects.filter(uuid=empty).update(created_at=then, updated_at=then)
    # Instance 1 runs on compute-02, whose disks moved to the storage pool:
    # the local disk it held there was never given back.
    Allocation.objects.create(
        consumer_id=uuid_of("instance", 1),
        resource_provider=ResourceProvider.objects.get(uuid=uuid_of("compute-02")),
        resource_class=ResourceClass.objects.get(name="DISK_GB"), used=20)
    return 2
