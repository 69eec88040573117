"""The console's planning pages: the drain what-if and the recorded
scheduling failures (``planning``, read through ``console.selectors``;
nothing written)."""
from django.http import Http404, QueryDict
from django.shortcuts import render

from console import charts, selectors
from console.views import staff_required
from placement_core import errors

DRAIN_SHOWN = 200
# Consumers named per reason they find no place for (the count is whole).
GROUP_SHOWN = 50


# The picker's own fields: what the hosts list shows, not what is drained.
PICKER_FIELDS = ("find", "pick")


@staff_required
def drain_what_if(request):
    """The drain what-if: pick hosts or an aggregate, see whether their
    consumers fit elsewhere (planning.drain; writes nothing). The hosts
    list is narrowed by ``find`` (name or uuid contains; as you type with
    JavaScript, on "Filter the list" without), picked hosts always kept."""
    query = request.GET.copy()
    find = query.get("find", "").strip()
    filtering = bool(query.get("pick"))
    for name in PICKER_FIELDS:
        query.pop(name, None)
    choices = selectors.drain_choices()
    picked = set(query.getlist("provider")) | set(query.getlist("tree"))
    needle = find.lower()
    hosts = [(uuid, name) for uuid, name in choices["hosts"]
             if not needle or needle in name.lower() or needle in uuid
             or uuid in picked or name in picked]
    context = {"choices": choices, "hosts": hosts, "find": find, "shown": DRAIN_SHOWN,
               "group_shown": GROUP_SHOWN, "group_shown_slice": f":{GROUP_SHOWN}",
               "group_shown_negative": -GROUP_SHOWN,
               "aggregate_members": selectors.aggregate_members(choices["aggregates"]),
               "picked": picked,
               "picked_names": [name for uuid, name in choices["hosts"]
                                if uuid in picked or name in picked],
               "aggregate": query.get("aggregate", ""),
               "target_aggregate": query.get("target_aggregate", ""),
               "required": query.get("required", "")}
    named = any(query.get(key, "").strip() for key in ("provider", "tree", "aggregate"))
    if named and not filtering:
        try:
            result = context["result"] = selectors.drain_what_if(query)
        except errors.PlacementError as exc:
            context["problem"] = str(exc.detail)
        else:
            groups = context["not_placed"] = selectors.drain_not_placed(result)
            context["consumer_types"] = selectors.consumer_types(
                [m.consumer for m in result.placed[:DRAIN_SHOWN]]
                + [m.consumer for g in groups for m in g["moves"][:GROUP_SHOWN]]
                + [f["instance"] for f in result.in_flight if f["instance"]])
    elif query and not (filtering or find):
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


