"""Reading a drain what-if's query string: ``GET /planning/drain`` and the
console's drain page read their input with :func:`arguments` into the
keyword arguments of ``planning.drain.drain``."""
from placement_core import errors
from planning.params import check_known, whole_number
from resource_classes.models import Trait

FULLEST = 10

PARAMETERS = {
    "provider": "A provider to drain, by uuid or name, with everything under it "
                "(repeat for several).",
    "tree": "Drain the whole tree of this provider (uuid or name; repeat for several).",
    "aggregate": "Drain every tree with a provider in this aggregate (its uuid, or a provider "
                 "in it by name or uuid).",
    "required": "Traits every target root must have, comma-separated.",
    "target_aggregate": "Only trees with a provider in this aggregate receive (its uuid, or a "
                        "provider in it).",
    "fullest": "How many of the fullest providers after the move to list (default 10, "
               "at most 1000).",
}
REPEATABLE = {"provider", "tree"}


def _check_parameters(query, known):
    check_known(query, known)
    for key in query.keys():
        if key not in REPEATABLE and len(query.getlist(key)) > 1:
            raise errors.BadRequest(f"Invalid query string parameters: {key} given twice.")


def _whole_number(query, key, default, high):
    text = query.get(key)
    if text is None:
        return default
    return whole_number(key, text, 0, high)


def arguments(query) -> dict:
    """The keyword arguments of :func:`drain` from a query string (a
    QueryDict): ``GET /planning/drain`` and the console's drain page read
    their input with it.  Raises ``errors.BadRequest``."""
    _check_parameters(query, PARAMETERS)
    required = [t.strip() for t in (query.get("required") or "").split(",") if t.strip()]
    missing = sorted(set(required) - set(
        Trait.objects.filter(name__in=required).values_list("name", flat=True)))
    if missing:
        raise errors.BadRequest(f"No such trait(s): {', '.join(missing)}.")
    return {
        "providers": [v.strip() for v in query.getlist("provider") if v.strip()],
        "trees": [v.strip() for v in query.getlist("tree") if v.strip()],
        "aggregate": (query.get("aggregate") or "").strip() or None,
        "required": required,
        "target_aggregate": (query.get("target_aggregate") or "").strip() or None,
        "fullest": _whole_number(query, "fullest", FULLEST, 1000),
    }
