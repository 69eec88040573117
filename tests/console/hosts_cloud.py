"""A cloud of nested hosts and a sharing storage pool, built through the API
(the per-host tests of the provider list and a host's page): NUMA cells
with VCPU and PCPU under each host, a NIC with VFs, MEMORY_MB on the root,
DISK_GB from a pool in the aggregate of three of the hosts."""
import uuid

from tests.console.api_cloud import MV, api_allocate, api_provider


def host(api, name, memory, cells, *, nic=0, aggregates=()):
    """A root with ``memory`` MEMORY_MB, a NUMA cell per (VCPU, PCPU) of
    ``cells`` and, with ``nic``, a NIC with that many VFs; {name: uuid}."""
    root = api_provider(api, name, inventory={"MEMORY_MB": memory}, aggregates=aggregates)
    made = {name: root}
    for i, (vcpu, pcpu) in enumerate(cells):
        inventory = {rc: n for rc, n in (("VCPU", vcpu), ("PCPU", pcpu)) if n}
        made[f"{name}-numa{i}"] = api_provider(api, f"{name}-numa{i}", root, inventory=inventory)
    if nic:
        made[f"{name}-nic"] = api_provider(api, f"{name}-nic", root,
                                           inventory={"SRIOV_NET_VF": nic},
                                           traits=["CUSTOM_PHYSNET_DATA"])
    return made


def build(api):
    """The providers by name, and the instances' uuids by name."""
    agg = str(uuid.uuid4())
    assert api.put("/traits/CUSTOM_PHYSNET_DATA", mv=MV).status_code in (201, 204)
    rp = {"pool": api_provider(api, "pool", inventory={"DISK_GB": 2000},
                               traits=["MISC_SHARES_VIA_AGGREGATE"], aggregates=[agg])}
    rp.update(host(api, "big", 32768, [(16, 4), (16, 4)], nic=8, aggregates=[agg]))
    rp.update(host(api, "small", 2048, [(2, 0), (2, 0)], aggregates=[agg]))
    rp.update(host(api, "lonely", 16384, [(8, 0)]))
    rp.update(host(api, "full", 1024, [(4, 0)], aggregates=[agg]))
    rp["flat"] = api_provider(api, "flat", inventory={"VCPU": 8, "MEMORY_MB": 4096,
                                                      "DISK_GB": 40})
    consumers = {
        "a": api_allocate(api, {rp["big"]: {"MEMORY_MB": 4096}, rp["big-numa0"]: {"VCPU": 4},
                                rp["big-nic"]: {"SRIOV_NET_VF": 1},
                                rp["pool"]: {"DISK_GB": 100}}),
        "b": api_allocate(api, {rp["big"]: {"MEMORY_MB": 2048}, rp["big-numa1"]: {"PCPU": 2},
                                rp["pool"]: {"DISK_GB": 50}}),
        # One VCPU on each cell: no cell has two left.
        "c": api_allocate(api, {rp["small"]: {"MEMORY_MB": 512}, rp["small-numa0"]: {"VCPU": 1},
                                rp["small-numa1"]: {"VCPU": 1}}),
        "d": api_allocate(api, {rp["full"]: {"MEMORY_MB": 1024}}),
    }
    return rp, consumers


def candidate_roots(api, resources):
    """The hosts of GET /allocation_candidates (no limit): per allocation
    request, the roots of the providers it takes from, sharing providers
    (GET /resource_providers?required=MISC_SHARES_VIA_AGGREGATE) left out
    unless it takes only from them; roots read off the provider summaries."""
    body = api.get(f"/allocation_candidates?resources={resources}", mv=MV).json()
    sharing = {p["uuid"] for p in api.get(
        "/resource_providers?required=MISC_SHARES_VIA_AGGREGATE", mv=MV).json()[
        "resource_providers"]}
    root_of = {u: s["root_provider_uuid"] for u, s in body["provider_summaries"].items()}
    hosts = set()
    for ar in body["allocation_requests"]:
        used = set(ar["allocations"])
        hosts |= {root_of[u] for u in (used - sharing or used)}
    return hosts
