"""The console's Audit page: the findings of ``manage.py audit_allocations``
and its two safe fixes, written through ``allocations.consumer_services``
and ``operations.audit`` after a confirmation."""
from urllib.parse import urlencode

from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse

from allocations.consumer_services import consumers_delete_empty
from console import params, selectors
from console.views import staff_required
from operations.audit import drop_allocations_without_inventory

AUDIT_SOURCE = "console_audit"


@staff_required
def audit_page(request):
    """The findings of ``manage.py audit_allocations``; its two safe fixes
    for staff after a confirmation page (GET ``?confirm=<finding>`` shows
    what would change, the POST it sends applies it to those rows that
    are still findings)."""
    hours, problem = params.migration_age(request)
    findings = selectors.audit_findings(migration_age_hours=hours)
    by_key = {f.key: f for f in findings}
    if request.method == "POST":
        return _audit_fix(request, by_key)
    confirm = by_key.get(request.GET.get("confirm", ""))
    if confirm is not None and not confirm.fix:
        confirm, problem = None, "That finding has no automatic fix: it needs a person."
    uuids = {r for f in findings for r in _provider_uuids(f)}
    consumers = {r for f in findings for r in _consumer_uuids(f)}
    return render(request, "console/audit.html", {
        "findings": findings, "confirm": confirm, "problem": problem,
        "hours": f"{hours:g}", "names": selectors.provider_names(uuids),
        "types": selectors.consumer_types(consumers),
        "done": request.GET.get("done", ""), "fixed": request.GET.get("fixed", ""),
        "failed": request.GET.getlist("failed"),
    })


def _provider_uuids(finding):
    for row in finding.rows:
        if isinstance(row, dict) and "provider" in row:
            yield row["provider"]


def _consumer_uuids(finding):
    for row in finding.rows:
        if isinstance(row, str) and finding.key != "invalid_rows":
            yield row
        elif isinstance(row, dict) and "consumer" in row:
            yield row["consumer"]


def _audit_fix(request, by_key):
    key = request.POST.get("fix", "")
    finding = by_key.get(key)
    if finding is None or not finding.fix:
        raise Http404(f"no fix {key!r}")
    # Only what the operator saw and confirmed, and only if it is still a finding.
    confirmed = set(request.POST.getlist("consumer"))
    user = request.user.get_username()
    failed = []
    if key == "consumers_without_allocations":
        fixed = consumers_delete_empty(
            uuids=sorted(u for u in finding.rows if u in confirmed),
            source=AUDIT_SOURCE, user_id=user)
    else:
        fixed, failed = drop_allocations_without_inventory(
            [r for r in finding.rows if r["consumer"] in confirmed],
            source=AUDIT_SOURCE, user_id=user)
    outcome = {"done": key, "fixed": fixed, "failed": failed}
    return redirect(f"{reverse('console:audit')}?{urlencode(outcome, doseq=True)}")
