"""Reading the console's own query parameters (the fullness sort and
threshold, the audit's migration age): a value that cannot be used is a
message for the page, never an error."""
from console import selectors
# A NUL character anywhere is refused before a page reads anything, the
# admin's way (placement_core.admin.AdminInputMiddleware).
from placement_core.querystring import nul_problem  # noqa: F401

SORTS = {"name": "name", "full": "fullest first", "empty": "emptiest first"}


def fullness_options(request, *, threshold_param, default_threshold=None):
    """The sort order, resource class and fullness threshold (a percentage)
    asked for, with a message per value that cannot be used (that value is
    then ignored)."""
    problems = []
    sort = request.GET.get("sort", "").strip() or "name"
    if sort not in SORTS:
        problems.append(f"Sort must be one of: {', '.join(SORTS)}.")
        sort = "name"
    resource_class = request.GET.get("class", "").strip()
    classes = selectors.inventory_class_names()
    if resource_class and resource_class not in classes:
        problems.append(f"No provider has inventory of {resource_class!r}.")
        resource_class = ""
    raw = request.GET.get(threshold_param, "").strip()
    threshold = default_threshold
    if raw:
        try:
            threshold = float(raw.rstrip("%").replace(",", ""))
            if not 0 <= threshold <= 10000 or threshold != threshold:
                raise ValueError
        except ValueError:
            problems.append("Fullness must be a percentage between 0 and 10000 "
                            f"(over-committed providers pass 100), not {raw!r}.")
            threshold = default_threshold
    return sort, resource_class, threshold, classes, problems


def migration_age(request):
    raw = request.GET.get("migration_age_hours", "").strip()
    if not raw:
        return 24.0, None
    try:
        hours = float(raw)
        if not 0 <= hours < 1e6:
            raise ValueError
    except ValueError:
        return 24.0, f"Migration age must be a number of hours of at least 0, not {raw!r}."
    return hours, None

