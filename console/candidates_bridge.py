"""The "why no candidates?" page asks the API's own candidate engine first."""
from django.http import QueryDict

from placement_site import errors
from placement_site.microversion import MAX_VERSION
from providers.models import ResourceProvider

SHOW = 20


def candidates_for(query: str):
    """Up to SHOW candidates as readable lines, [] when none, or an error line."""
    try:
        from allocations.candidates import allocation_candidates
    except ImportError:
        return None
    try:
        body = allocation_candidates(QueryDict(query.lstrip("?")), MAX_VERSION)
    except errors.PlacementError as exc:
        return [f"The API would answer {exc.__class__.__name__}: {exc}"]
    requests = body.get("allocation_requests", [])[:SHOW]
    uuids = {u for r in requests for u in r.get("allocations", {})}
    names = dict(ResourceProvider.objects.filter(uuid__in=uuids).values_list("uuid", "name"))
    lines = []
    for r in requests:
        parts = []
        for u, alloc in r.get("allocations", {}).items():
            res = ", ".join(f"{rc} {n}" for rc, n in sorted(alloc.get("resources", {}).items()))
            parts.append(f"{names.get(u, u)} ({res})")
        lines.append("; ".join(parts))
    total = len(body.get("allocation_requests", []))
    if total > SHOW:
        lines.append(f"… {total - SHOW} more")
    return lines
