"""A small cloud made through the Placement API, and everything it reads back.

``build(base, tag)`` makes, through whichever server ``base`` is: two
compute trees (compute node, two NUMA children, an SR-IOV PF under one),
a sharing disk provider in an aggregate with both computes, custom
resource classes and traits, and consumers with allocations across the
trees and the sharing provider.  ``tag`` keeps the names of two calls
apart.  ``snapshot(base)`` reads every provider, inventory, trait,
aggregate, usage and allocation, normalised so that two servers' answers
compare with ``==`` (lists sorted; nothing else is dropped).
"""
import json
import uuid

import requests

MV = "1.39"
PROJECT, USER = "onedb-project", "onedb-user"


class ApiError(AssertionError):
    pass


def call(base, method, path, body=None, mv=MV, expect=(200, 201, 204)):
    response = requests.request(
        method, base + path, json=body, timeout=60,
        headers={"x-auth-token": "admin", "accept": "application/json",
                 "openstack-api-version": f"placement {mv}"})
    if expect and response.status_code not in expect:
        raise ApiError(f"{method} {path} at {mv} -> {response.status_code} via "
                       f"{base}: {response.text[:500]}")
    return response.json() if response.content else None


def _provider(base, name, parent=None):
    body = {"name": name, "uuid": str(uuid.uuid4())}
    if parent:
        body["parent_provider_uuid"] = parent
    return call(base, "POST", "/resource_providers", body)["uuid"]


def _generation(base, rp):
    return call(base, "GET", f"/resource_providers/{rp}")["generation"]


def _inventories(base, rp, **totals):
    inventories = {rc: {"total": total, "max_unit": total} for rc, total in totals.items()}
    call(base, "PUT", f"/resource_providers/{rp}/inventories",
         {"resource_provider_generation": _generation(base, rp), "inventories": inventories})


def _traits(base, rp, *traits):
    call(base, "PUT", f"/resource_providers/{rp}/traits",
         {"resource_provider_generation": _generation(base, rp), "traits": list(traits)})


def _aggregates(base, rp, *aggregates):
    call(base, "PUT", f"/resource_providers/{rp}/aggregates",
         {"resource_provider_generation": _generation(base, rp), "aggregates": list(aggregates)})


def allocate(base, consumer, allocations, consumer_generation=None, consumer_type="INSTANCE"):
    body = {"allocations": {rp: {"resources": res} for rp, res in allocations.items()},
            "project_id": PROJECT, "user_id": USER, "consumer_generation": consumer_generation}
    if consumer_type:
        body["consumer_type"] = consumer_type
    call(base, "PUT", f"/allocations/{consumer}", body, mv=MV if consumer_type else "1.28")


def build(base, tag):
    """Make the cloud through ``base``; returns the names a test writes to later."""
    tag = tag.upper()
    call(base, "PUT", f"/resource_classes/CUSTOM_FPGA_{tag}", expect=(201, 204))
    call(base, "PUT", f"/traits/CUSTOM_GOLD_{tag}", expect=(201, 204))
    aggregate = str(uuid.uuid4())
    shared = _provider(base, f"shared-disk-{tag}")
    _inventories(base, shared, DISK_GB=2000)
    _traits(base, shared, "MISC_SHARES_VIA_AGGREGATE")
    _aggregates(base, shared, aggregate)
    made = {"shared": shared, "aggregate": aggregate, "computes": [], "numa": [],
            "consumers": []}
    for index in range(2):
        cn = _provider(base, f"cn{index}-{tag}")
        _inventories(base, cn, DISK_GB=100)
        _traits(base, cn, "HW_CPU_X86_AVX2", f"CUSTOM_GOLD_{tag}", "COMPUTE_VOLUME_MULTI_ATTACH")
        _aggregates(base, cn, aggregate, str(uuid.uuid4()))
        numa = [_provider(base, f"cn{index}-{tag}-numa{n}", cn) for n in range(2)]
        for node in numa:
            _inventories(base, node, VCPU=16, MEMORY_MB=32768)
            _traits(base, node, "HW_NUMA_ROOT")
        pf = _provider(base, f"cn{index}-{tag}-pf0", numa[0])
        _inventories(base, pf, SRIOV_NET_VF=8, **{f"CUSTOM_FPGA_{tag}": 2})
        made["computes"].append(cn)
        made["numa"] += numa
        made["pf"] = pf
    for index in range(3):
        consumer = str(uuid.uuid4())
        node = made["numa"][index]
        allocate(base, consumer, {node: {"VCPU": 2, "MEMORY_MB": 2048},
                                  shared: {"DISK_GB": 20}},
                 consumer_type="INSTANCE" if index else "MIGRATION")
        made["consumers"].append(consumer)
    allocate(base, made["consumers"][0],
             {made["numa"][0]: {"VCPU": 2, "MEMORY_MB": 2048}, made["pf"]: {
                 "SRIOV_NET_VF": 1, f"CUSTOM_FPGA_{tag}": 1}, shared: {"DISK_GB": 20}},
             consumer_generation=1, consumer_type="MIGRATION")
    return made


def _normal(value):
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((_normal(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    return value


def snapshot(base):
    """path -> normalised JSON answer, for everything the cloud holds."""
    reads = {}

    def read(path, mv=MV):
        reads[f"{path} @{mv}"] = _normal(call(base, "GET", path, mv=mv))
        return reads[f"{path} @{mv}"]

    providers = read("/resource_providers")["resource_providers"]
    consumers = set()
    for rp in providers:
        path = f"/resource_providers/{rp['uuid']}"
        for suffix in ("", "/inventories", "/traits", "/aggregates", "/usages"):
            read(path + suffix)
        consumers |= set(read(path + "/allocations")["allocations"])
        for inventory in read(path + "/inventories")["inventories"]:
            read(f"{path}/inventories/{inventory}")
    for consumer in sorted(consumers):
        read(f"/allocations/{consumer}")
    read("/resource_classes")
    read("/traits")
    read("/traits?associated=true")
    # At 1.38+ upstream 16.0.0 answers GET /usages on PostgreSQL with a 500
    # (its GROUP BY misses a column): read them at 1.37, before consumer types.
    read(f"/usages?project_id={PROJECT}", mv="1.37")
    read(f"/usages?project_id={PROJECT}&user_id={USER}", mv="1.37")
    read("/resource_providers?member_of=in:" + ",".join(sorted({
        agg for rp in providers
        for agg in reads[f"/resource_providers/{rp['uuid']}/aggregates @{MV}"]["aggregates"]})))
    read("/resource_providers?required=HW_NUMA_ROOT")
    read("/allocation_candidates?resources=VCPU:1,DISK_GB:10")
    read("/allocation_candidates?resources=VCPU:1&resources1=SRIOV_NET_VF:1"
         "&group_policy=none")
    return reads


def differences(left, right, names=("left", "right")):
    lines = []
    for path in sorted(set(left) | set(right)):
        if left.get(path) != right.get(path):
            lines.append(f"{path}:\n  {names[0]}: {json.dumps(left.get(path))[:400]}\n"
                         f"  {names[1]}: {json.dumps(right.get(path))[:400]}")
    return lines


def more_writes(base, made, tag):
    """A second round of writes of every kind through ``base``: a new tree and
    consumer, a move, changed traits, aggregates and inventory, a deletion."""
    later = build(base, tag)
    allocate(base, later["consumers"][1], {made["numa"][1]: {"VCPU": 1, "MEMORY_MB": 512}},
             consumer_generation=1)
    _traits(base, made["computes"][0], "HW_CPU_X86_AVX2", "COMPUTE_NODE")
    _aggregates(base, made["computes"][1], made["aggregate"])
    _inventories(base, made["shared"], DISK_GB=3000)
    call(base, "DELETE", f"/allocations/{made['consumers'].pop()}")
    return later
