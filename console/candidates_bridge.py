"""The "why no candidates?" page asks the engine itself for candidates."""
from allocations import engine
from placement_site import errors
from placement_site.querystring import CandidateRequest
from providers.models import ResourceProvider

SHOW = 20


def candidates_for(request: CandidateRequest) -> list[str]:
    """Up to SHOW candidates as readable lines, [] when none, or an error line."""
    try:
        found = engine.find_candidates(request).allocation_requests
    except errors.PlacementError as exc:
        return [f"The API would answer {exc.__class__.__name__}: {exc}"]
    shown = found[:SHOW]
    uuids = {u for r in shown for u in r.allocations}
    names = dict(ResourceProvider.objects.filter(uuid__in=uuids).values_list("uuid", "name"))
    lines = []
    for r in shown:
        parts = []
        for u, resources in r.allocations.items():
            res = ", ".join(f"{rc} {n}" for rc, n in sorted(resources.items()))
            parts.append(f"{names.get(u, u)} ({res})")
        lines.append("; ".join(parts))
    if len(found) > SHOW:
        lines.append(f"… {len(found) - SHOW} more")
    return lines
