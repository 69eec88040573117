"""The console's planning pages: the drain what-if and the recorded
scheduling failures (``planning``, read through ``console.selectors``;
nothing written)."""
from django.http import Http404, QueryDict
from django.shortcuts import render

from console import charts, selectors
from console.views import staff_required
from placement_core import errors

DRAIN_SHOWN = 200


@staff_required
def drain_what_if(request):
    """The drain what-if: pick hosts or an aggregate, see whether their
    consumers fit elsewhere (planning.drain; writes nothing)."""
    query = request.GET
    choices = selectors.drain_choices()
    context = {"choices": choices, "shown": DRAIN_SHOWN,
               "aggregate_members": selectors.aggregate_members(choices["aggregates"]),
               "picked": set(query.getlist("provider")) | set(query.getlist("tree")),
               "aggregate": query.get("aggregate", ""),
               "target_aggregate": query.get("target_aggregate", ""),
               "required": query.get("required", "")}
    if any(query.get(key, "").strip() for key in ("provider", "tree", "aggregate")):
        try:
            result = context["result"] = selectors.drain_what_if(query)
        except errors.PlacementError as exc:
            context["problem"] = str(exc.detail)
        else:
            context["consumer_types"] = selectors.consumer_types(
                m.consumer for m in (result.placed[:DRAIN_SHOWN]
                                     + result.not_placed[:DRAIN_SHOWN]))
    elif query:
        context["problem"] = "Pick at least one host or an aggregate to drain."
    return render(request, "console/drain.html", context)


@staff_required
def scheduling_failures(request):
    """Recorded scheduling failures grouped by reason with their trend, the
    newest records, and a look-up by global request id."""
    context = {"kinds": selectors.FAILURE_KINDS, "reasons": selectors.FAILURE_REASONS,
               "filters": {key: request.GET.get(key, "") for key in
                           ("global_request_id", "kind", "reason", "hours")}}
    try:
        result = selectors.scheduling_failures(request.GET)
    except errors.PlacementError as exc:
        context["problem"] = str(exc.detail)
        result = selectors.scheduling_failures(QueryDict())
    for group in result["by_reason"]:
        group["chart"] = charts.trend_bars(group["trend"])
    for record in result["failures"]:
        record["reasons"] = selectors.failure_reasons(record)
    context["result"] = result
    return render(request, "console/failures.html", context)


@staff_required
def scheduling_failure(request, pk):
    record = selectors.scheduling_failure(pk)
    if record is None:
        raise Http404(f"no scheduling failure {pk}")
    claimed_on = (record["explanation"] or {}).get("provider") if record["kind"] == "claim" else None
    record["reasons"] = selectors.failure_reasons(record)
    if record["kind"] == "claim" and record["explanation"]:
        record["claim"] = selectors.claim_reason(record["explanation"])
    for group in (record["explanation"] or {}).get("groups", []):
        for step in group.get("steps", []) + group.get("tree_steps", []):
            # The record keeps the first few of each step: say how many it left out.
            step["more"] = step.get("removed_count", 0) - len(step.get("removed", []))
    return render(request, "console/failure_detail.html", {
        "f": record, "names": selectors.provider_names([claimed_on] if claimed_on else [])})


