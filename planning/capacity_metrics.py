"""Capacity gauges for /metrics: inventory and usage, read in three statements.

However many providers there are, a refresh runs exactly three SELECTs
(inventories with their provider and root; usage per provider and class;
usage per project, consumer type and class) and keeps the result for
``PLACEMENT_METRICS_CACHE_SECONDS`` in this process, so frequent scrapes or
several Prometheus servers do not load the database.  The gauges are
computed at scrape time (a custom collector), not stored per worker, so in
multi-process mode they are reported once, not summed.

The headroom gauge, cached the same way, adds one SELECT a refresh (the
flavors stored in the console) and four more when there is any flavor.
"""
import threading
import time

from django.conf import settings
from django.db.models import Sum
from prometheus_client.core import GaugeMetricFamily

from allocations.models import Allocation
from providers.models import Inventory

PROVIDER_LABELS = ["provider_uuid", "provider_name", "root_provider_uuid", "resource_class"]

_lock = threading.Lock()
_cache = {"at": None, "value": None}


def read_capacity():
    """Inventory and usage rows from the database (three statements)."""
    inventories = list(Inventory.objects.values_list(
        "resource_provider_id", "resource_provider__uuid", "resource_provider__name",
        "resource_provider__root__uuid", "resource_class__name",
        "total", "reserved", "allocation_ratio",
    ))
    used = {
        (rp_id, rc): amount for rp_id, rc, amount in Allocation.objects.values(
            "resource_provider_id", "resource_class__name").annotate(
            amount=Sum("used")).values_list("resource_provider_id", "resource_class__name",
                                            "amount")
    }
    by_project = list(Allocation.objects.values(
        "consumer__project__external_id", "consumer__consumer_type__name",
        "resource_class__name").annotate(amount=Sum("used")).values_list(
        "consumer__project__external_id", "consumer__consumer_type__name",
        "resource_class__name", "amount"))
    return inventories, used, by_project


def cached_capacity(now=None):
    now = time.monotonic() if now is None else now
    ttl = settings.PLACEMENT_METRICS_CACHE_SECONDS
    with _lock:
        if _cache["at"] is None or now - _cache["at"] >= ttl:
            _cache["value"] = read_capacity()
            _cache["at"] = now
        return _cache["value"]


_headroom_cache = {"at": None, "value": None}


def cached_headroom(now=None):
    """planning.headroom for the flavors of the setting and the stored
    ones, kept as long as the capacity figures (one statement a refresh for
    the stored flavors, four more when there is any flavor)."""
    from planning.headroom import flavor_list, headroom

    now = time.monotonic() if now is None else now
    with _lock:
        if (_headroom_cache["at"] is None
                or now - _headroom_cache["at"] >= settings.PLACEMENT_METRICS_CACHE_SECONDS):
            _headroom_cache["value"] = headroom(flavor_list())
            _headroom_cache["at"] = now
        return _headroom_cache["value"]


def clear_cache():
    with _lock:
        _cache["at"] = _cache["value"] = None
        _headroom_cache["at"] = _headroom_cache["value"] = None


class CapacityCollector:
    def collect(self):
        inventories, used, by_project = cached_capacity()
        families = {
            name: GaugeMetricFamily(f"placement_provider_{name}", text, labels=PROVIDER_LABELS)
            for name, text in (
                ("total", "Inventory total per provider and resource class."),
                ("reserved", "Inventory reserved per provider and resource class."),
                ("allocation_ratio", "Overcommit ratio per provider and resource class."),
                ("used", "Amount allocated per provider and resource class."),
            )
        }
        for rp_id, uuid, name, root_uuid, rc, total, reserved, ratio in inventories:
            labels = [uuid, name, root_uuid or uuid, rc]
            families["total"].add_metric(labels, total)
            families["reserved"].add_metric(labels, reserved)
            families["allocation_ratio"].add_metric(labels, ratio)
            families["used"].add_metric(labels, used.get((rp_id, rc), 0))
        yield from families.values()
        project_used = GaugeMetricFamily(
            "placement_project_used", "Amount allocated per project, consumer type and class.",
            labels=["project_id", "consumer_type", "resource_class"])
        for project, consumer_type, rc, amount in by_project:
            project_used.add_metric([project, consumer_type or "", rc], amount)
        yield project_used
        headroom = cached_headroom()
        if headroom:
            fits = GaugeMetricFamily(
                "placement_headroom_instances",
                "Instances of each flavor (PLACEMENT_FLAVORS and those stored in the console) "
                "that still fit, in the whole cloud (aggregate \"\") and per aggregate.",
                labels=["flavor", "aggregate"])
            for flavor, counts in headroom.items():
                fits.add_metric([flavor, ""], counts["cloud"])
                for agg, n in counts["aggregates"].items():
                    fits.add_metric([flavor, agg], n)
            yield fits
