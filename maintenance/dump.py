"""The portable dump: all placement data keyed by uuids and names.

Its format and ``export_data`` (export_json); loading it back is
:mod:`maintenance.loader` (load_json, import_upstream).
"""
from __future__ import annotations

from collections import defaultdict

from allocations.models import Allocation, Consumer, ConsumerType, Project, User
from providers.models import Aggregate, Inventory, ProviderAggregate, ProviderTrait, ResourceProvider
from resource_classes.models import ResourceClass, Trait

DUMP_FORMAT = "placement-dump"
DUMP_VERSION = 1
INVENTORY_FIELDS = ("total", "reserved", "min_unit", "max_unit", "step_size", "allocation_ratio")


class DumpError(ValueError):
    pass


def export_data() -> dict:
    """All placement data, keyed by uuids and names (never by primary keys)."""
    rc_names = dict(ResourceClass.objects.values_list("pk", "name"))
    trait_names = dict(Trait.objects.values_list("pk", "name"))
    rps = list(ResourceProvider.objects.order_by("pk").values(
        "pk", "uuid", "name", "generation", "parent_id", "root_id"))
    rp_uuid = {rp["pk"]: rp["uuid"] for rp in rps}
    invs, traits, aggs = defaultdict(dict), defaultdict(list), defaultdict(list)
    for inv in Inventory.objects.order_by("pk").values("resource_provider_id", "resource_class_id",
                                                       *INVENTORY_FIELDS):
        invs[inv["resource_provider_id"]][rc_names[inv["resource_class_id"]]] = {
            f: inv[f] for f in INVENTORY_FIELDS}
    # Links have no id of their own (upstream's composite keys): by name, by uuid.
    for rp_id, t_id in ProviderTrait.objects.order_by(
            "resource_provider_id", "trait__name").values_list("resource_provider_id", "trait_id"):
        traits[rp_id].append(trait_names[t_id])
    for rp_id, agg in ProviderAggregate.objects.order_by(
            "resource_provider_id", "aggregate__uuid").values_list(
            "resource_provider_id", "aggregate__uuid"):
        aggs[rp_id].append(agg)
    allocs = defaultdict(list)
    for a in Allocation.objects.order_by("pk").values("consumer_id", "resource_provider_id",
                                                      "resource_class_id", "used"):
        allocs[a["consumer_id"]].append({
            "resource_provider": rp_uuid[a["resource_provider_id"]],
            "resource_class": rc_names[a["resource_class_id"]],
            "used": a["used"],
        })
    consumers = [
        {"uuid": c["uuid"], "project": c["project__external_id"], "user": c["user__external_id"],
         "consumer_type": c["consumer_type__name"], "generation": c["generation"],
         "allocations": allocs.get(c["uuid"], [])}
        for c in Consumer.objects.order_by("pk").values(
            "pk", "uuid", "project__external_id", "user__external_id", "consumer_type__name",
            "generation")
    ]
    return {
        "format": DUMP_FORMAT,
        "version": DUMP_VERSION,
        "resource_classes": sorted(n for n in rc_names.values() if n.startswith("CUSTOM_")),
        "traits": sorted(n for n in trait_names.values() if n.startswith("CUSTOM_")),
        "aggregates": list(Aggregate.objects.order_by("pk").values_list("uuid", flat=True)),
        "projects": list(Project.objects.order_by("pk").values_list("external_id", flat=True)),
        "users": list(User.objects.order_by("pk").values_list("external_id", flat=True)),
        "consumer_types": list(ConsumerType.objects.order_by("pk").values_list("name", flat=True)),
        "resource_providers": [
            {"uuid": rp["uuid"], "name": rp["name"], "generation": rp["generation"],
             "parent": rp_uuid.get(rp["parent_id"]), "root": rp_uuid.get(rp["root_id"]),
             "inventories": invs.get(rp["pk"], {}), "traits": traits.get(rp["pk"], []),
             "aggregates": aggs.get(rp["pk"], [])}
            for rp in rps
        ],
        "consumers": consumers,
    }
