"""Planning gauges for /metrics: the usage forecast and stranded capacity.

Computed at scrape time and kept ``PLACEMENT_METRICS_CACHE_SECONDS`` per
process, as the capacity gauges of planning/capacity_metrics.py (one statement
for the forecast, five for stranded capacity, per refresh).  A days gauge
is left out for a series that is not growing (it would be infinite), so a
Grafana panel shows only what is on its way to full.

The failure counter lives in planning.failures (a Counter: it counts
events, per process, summed across workers in multi-process mode).
"""
import threading
import time

from django.conf import settings
from prometheus_client.core import GaugeMetricFamily

from planning import forecast

_lock = threading.Lock()
_cache = {"at": None, "value": None}


def cached(now=None):
    now = time.monotonic() if now is None else now
    with _lock:
        if _cache["at"] is None or now - _cache["at"] >= settings.PLACEMENT_METRICS_CACHE_SECONDS:
            _cache["value"] = (forecast.forecast(), forecast.stranded(show=0))
            _cache["at"] = now
        return _cache["value"]


def clear_cache():
    with _lock:
        _cache["at"] = _cache["value"] = None


class PlanningCollector:
    def collect(self):
        predicted, stranded = cached()
        labels = ["aggregate", "resource_class"]
        trend = GaugeMetricFamily(
            "placement_usage_trend_per_day",
            "Growth of usage a day: slope of a least-squares line over the forecast window "
            "of usage snapshots (aggregate \"\" is the whole cloud).", labels=labels)
        to_full = GaugeMetricFamily(
            "placement_usage_days_to_capacity",
            "Days until the usage line reaches capacity (absent when usage is not growing).",
            labels=labels)
        to_threshold = GaugeMetricFamily(
            "placement_usage_days_to_threshold",
            "Days until the usage line reaches PLACEMENT_FORECAST_THRESHOLD_PERCENT of "
            "capacity (absent when usage is not growing).", labels=labels)
        for row in predicted["rows"]:
            key = [row["aggregate"], row["resource_class"]]
            if row["trend_per_day"] is not None:
                trend.add_metric(key, row["trend_per_day"])
            if row["days_to_capacity"] is not None:
                to_full.add_metric(key, row["days_to_capacity"])
            if row["days_to_threshold"] is not None:
                to_threshold.add_metric(key, row["days_to_threshold"])
        yield trend
        yield to_full
        yield to_threshold
        amount = GaugeMetricFamily(
            "placement_stranded_capacity",
            "Free capacity that no known flavor (or default shape) can use on its host: "
            "no instance of one fits in the provider's tree with its sharing pools.",
            labels=["resource_class"])
        count = GaugeMetricFamily(
            "placement_stranded_providers",
            "Providers whose free capacity of the class is stranded.", labels=["resource_class"])
        for rc, entry in stranded.items():
            amount.add_metric([rc], entry["amount"])
            count.add_metric([rc], entry["providers"])
        yield amount
        yield count
