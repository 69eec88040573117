"""When will we be full, and what can we not use now?

**Forecast.** From the usage snapshots (``operations.snapshots``, taken by
``manage.py take_usage_snapshot`` from cron), per resource class, for the
whole cloud and per aggregate: a least-squares line through the used
amounts of the last ``PLACEMENT_FORECAST_WINDOW_DAYS`` days; its slope is
the trend (units a day), and where the line meets the latest capacity (and
``PLACEMENT_FORECAST_THRESHOLD_PERCENT`` of it) gives the days left.

Why a straight line over a window: a cloud's usage grows by many small,
independent claims, so over a few weeks it moves roughly steadily; a line
has two parameters that a handful of snapshots pin down, it cannot run
away as a higher-degree fit or an exponential can on noisy data, and an
operator can check it by eye on the Usage chart.  The window makes it
follow a change of pace (a new tenant onboarding) within that many days.
What it ignores: daily and weekly cycles (a window of whole weeks averages
them out), step changes announced ahead (a migration wave, a tenant
leaving), capacity added or removed in future (it measures against the
capacity of the latest snapshot), and where in the cloud the growth lands
(fragmentation: see stranded capacity).  ``r_squared`` says how well the
line fits; a low value means the days left are not to be trusted.

**Stranded capacity.** Free capacity that no flavor the cloud knows can
use where it is: the flavors headroom counts (``PLACEMENT_FLAVORS`` and the
stored ones, ``planning.headroom.flavor_list``), or, when there are none,
:data:`DEFAULT_SHAPES`. A provider's free amount of a class is usable when
some flavor asking for the class fits at least once in its tree, with the
sharing pools the tree reaches (headroom's fit, ``planning.headroom.unusable``),
taking the class from that provider; otherwise it is stranded. So a NUMA
cell's free VCPU beside its pinned-out PCPU is not stranded (a shared-CPU
flavor takes it), while a host's VCPU beside memory too small for any
flavor is. Classes no flavor asks for (VFs, bandwidth when flavors do not
name them) are not judged; disabled trees are left out; a pool no enabled
tree reaches is stranded whole.
"""
from __future__ import annotations

from collections import defaultdict

from django.conf import settings
from django.utils import timezone

from operations.models import UsageSnapshot
from placement_core import errors
from placement_core.querystring import Flavor
from placement_core.texttable import table
from placement_core.units import human_amount, rate, used_of
from placement_core.uuids import normalize_uuid
from planning.headroom import flavor_list, unusable
from planning.params import check_known, whole_number
from providers.references import aggregate_members, aggregate_name

SHOW_PROVIDERS = 50
# With no flavor known, stranded capacity is judged against the smallest
# shapes ordinary flavors take: a shared or a dedicated CPU with 512 MB,
# booting from a volume (no disk) or from 10 GB of local or pooled disk
# (10, not 1: disk pools often have a min_unit or step_size of 10).
DEFAULT_SHAPES = (
    Flavor("default-shared-cpu", {"VCPU": 1, "MEMORY_MB": 512}),
    Flavor("default-dedicated-cpu", {"PCPU": 1, "MEMORY_MB": 512}),
    Flavor("default-shared-cpu-disk", {"VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 10}),
    Flavor("default-dedicated-cpu-disk", {"PCPU": 1, "MEMORY_MB": 512, "DISK_GB": 10}),
)


def fit_line(points):
    """Least squares through [(x, y), ...]: (slope, intercept, r_squared),
    or None with fewer than two distinct x."""
    n = len(points)
    if n < 2:
        return None
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    sxx = sum((x - mean_x) ** 2 for x, _ in points)
    if sxx == 0:
        return None
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in points)
    slope = sxy / sxx
    intercept = mean_y - slope * mean_x
    syy = sum((y - mean_y) ** 2 for _, y in points)
    r_squared = 1.0 if syy == 0 else (sxy * sxy) / (sxx * syy)
    return slope, intercept, r_squared


def _days_until(target, now_fit, slope, latest):
    """Days from now until the fitted line reaches ``target``: 0 when the
    latest snapshot is already there, None when usage is not growing."""
    if latest >= target:
        return 0.0
    if slope <= 0:
        return None
    return max(0.0, (target - now_fit) / slope)


def forecast(*, now=None, window_days=None, threshold_percent=None, aggregate=None) -> dict:
    """{"method", "window_days", "threshold_percent", "rows": [...]}, a row per
    (aggregate or "" for the whole cloud, class); ``aggregate`` keeps one scope."""
    now = now or timezone.now()
    window_days = window_days or settings.PLACEMENT_FORECAST_WINDOW_DAYS
    threshold_percent = threshold_percent or settings.PLACEMENT_FORECAST_THRESHOLD_PERCENT
    query = UsageSnapshot.objects.filter(taken_at__gte=now - timezone.timedelta(days=window_days),
                                         taken_at__lte=now)
    if aggregate is not None:
        query = query.filter(aggregate_uuid=aggregate)
    series = defaultdict(list)
    for taken_at, scope, rc, capacity, used in query.order_by("taken_at", "id").values_list(
            "taken_at", "aggregate_uuid", "resource_class", "capacity", "used"):
        series[(scope, rc)].append(((taken_at - now).total_seconds() / 86400, capacity, used,
                                    taken_at))
    rows = []
    for (scope, rc), samples in sorted(series.items()):
        _, capacity, used, _ = samples[-1]
        row = {"aggregate": scope, "resource_class": rc, "samples": len(samples),
               "since": samples[0][3].isoformat(),
               "used": used, "capacity": capacity,
               "percent": round(100 * used / capacity, 1) if capacity else None,
               "trend_per_day": None, "r_squared": None,
               "days_to_capacity": None, "days_to_threshold": None}
        line = fit_line([(x, u) for x, _, u, _ in samples])
        if line is not None:
            slope, intercept, r_squared = line
            row["trend_per_day"] = round(slope, 3)
            row["r_squared"] = round(r_squared, 3)
            if capacity > 0:
                for key, target in (("days_to_capacity", capacity),
                                    ("days_to_threshold", capacity * threshold_percent / 100)):
                    days = _days_until(target, intercept, slope, used)
                    row[key] = None if days is None else round(days, 1)
        rows.append(row)
    return {"method": f"least-squares line over the last {window_days} days of usage snapshots",
            "window_days": window_days, "threshold_percent": threshold_percent, "rows": rows}


PARAMETERS = {
    "aggregate": "Only this aggregate's rows (uuid); empty for the whole cloud's.",
    "window_days": "Days of snapshots the line is fitted to (default "
                   "PLACEMENT_FORECAST_WINDOW_DAYS).",
    "threshold_percent": "The threshold, percent of capacity (default "
                         "PLACEMENT_FORECAST_THRESHOLD_PERCENT).",
    "show": f"Providers listed per class under stranded capacity (default {SHOW_PROVIDERS}).",
}


def arguments(query) -> dict:
    """Keyword arguments of :func:`report` from a query string (a QueryDict);
    raises ``errors.BadRequest``."""
    check_known(query, PARAMETERS)
    out = {}
    for key, low, high in (("window_days", 1, 3650), ("threshold_percent", 1, 100),
                           ("show", 0, 10000)):
        text = query.get(key)
        if text is None or text == "":
            continue
        out[key] = whole_number(key, text, low, high)
    aggregate = query.get("aggregate")
    if aggregate is not None and aggregate != "":
        if normalize_uuid(aggregate) is None:
            raise errors.BadRequest(f"Aggregate {aggregate!r} is not a uuid.")
        out["aggregate"] = normalize_uuid(aggregate)
    elif aggregate == "":
        out["aggregate"] = ""
    return out


def report(*, aggregate=None, window_days=None, threshold_percent=None, show=SHOW_PROVIDERS,
           now=None) -> dict:
    """The forecast and the stranded capacity, as ``GET /planning/forecast``
    answers them, with the shapes stranded capacity was judged against."""
    known = flavor_list()
    shapes = known or list(DEFAULT_SHAPES)
    return {"forecast": forecast(aggregate=aggregate, window_days=window_days,
                                 threshold_percent=threshold_percent, now=now),
            "stranded": stranded(show=show, flavors=shapes),
            "stranded_shapes": {"default": not known, "flavors": {
                f.name: ",".join(f"{rc}:{n}" for rc, n in f.resources.items())
                for f in shapes}}}


def stranded(*, show=SHOW_PROVIDERS, flavors=None) -> dict:
    """{class: {"amount", "providers": count, "listed": [...]}}: free capacity
    no flavor can use (``flavors``; by default the known ones, else
    DEFAULT_SHAPES), the providers most first, each with the classes that
    stood in the way as "exhausted" (five statements)."""
    if flavors is None:
        flavors = flavor_list() or list(DEFAULT_SHAPES)
    out = {}
    for row in unusable(flavors):
        entry = out.setdefault(row["resource_class"], {"amount": 0, "providers": 0, "listed": []})
        entry["amount"] += row["free"]
        entry["providers"] += 1
        entry["listed"].append({"uuid": row["uuid"], "name": row["name"], "free": row["free"],
                                "capacity": row["capacity"], "exhausted": row["short"]})
    for entry in out.values():
        entry["listed"].sort(key=lambda p: (-p["free"], p["name"]))
        del entry["listed"][show:]
    return dict(sorted(out.items()))


def as_text(result: dict) -> str:
    """The forecast and the stranded capacity as two tables, amounts in each
    class's unit, aggregates by their members' names."""
    f = result["forecast"]
    lines = [f"forecast: {f['method']}; threshold {f['threshold_percent']}% of capacity"]
    if not f["rows"]:
        lines.append("  no usage snapshots in the window (run manage.py take_usage_snapshot "
                     "from cron)")
    members = aggregate_members({row["aggregate"] for row in f["rows"] if row["aggregate"]})

    def days(row, value):
        return "not growing" if value is None and row["trend_per_day"] is not None \
            else "-" if value is None else f"{value:g} d"

    rows = [[aggregate_name(row["aggregate"], members, shown=1) if row["aggregate"] else "cloud",
             row["resource_class"], used_of(row["used"], row["capacity"], row["resource_class"]),
             "-" if row["percent"] is None else f"{row['percent']:g}%",
             rate(row["trend_per_day"], row["resource_class"]),
             "-" if row["r_squared"] is None else f"{row['r_squared']:.2f}",
             days(row, row["days_to_threshold"]), days(row, row["days_to_capacity"])]
            for row in f["rows"]]
    if rows:
        lines += table(["scope", "class", "used", "use", "trend", "fit r2",
                        f"{f['threshold_percent']}% in", "full in"], rows, right=(3, 5, 6, 7))
    lines.append("")
    lines.append("stranded capacity (free that no known flavor can use on its host):")
    if not result["stranded"]:
        lines.append("  none")
        return "\n".join(lines) + "\n"
    listed = []
    for rc, entry in result["stranded"].items():
        lines.append(f"  {rc}: {human_amount(entry['amount'], rc)} on {entry['providers']} "
                     "provider(s)")
        listed += [[p["name"], rc, used_of(p["free"], p["capacity"], rc),
                    ", ".join(p["exhausted"])] for p in entry["listed"]]
    lines += table(["provider", "class", "free", "exhausted"], listed, indent="  ")
    return "\n".join(lines) + "\n"
