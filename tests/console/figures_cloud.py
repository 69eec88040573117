"""A deliberately awkward cloud, built through the Placement API (and, for
what the API refuses, behind its back), for checking every figure the
console shows against a count made another way.

Trees (capacity = (total - reserved) * ratio, floored per inventory)::

  h1                MEMORY_MB 65536 res 4096 x1.5 = 92160 (min 256, max 32768, step 256)  [AGG_A]
   ├ h1-numa0       VCPU 16 res 2 x4 = 56; PCPU 8 = 8
   │  └ h1-numa0-nic CUSTOM_NIC_VF 8 res 1 = 7; NET_BW_EGR_KILOBIT_PER_SEC 10e6 res 1e6 = 9e6
   └ h1-numa1       VCPU 15 x0.75 = 11 (11.25); PCPU 8 res 1 = 7                         [AGG_C]
  h2 (disabled)     MEMORY_MB 32768 res 512 = 32256
   └ h2-numa0       VCPU 8 x16 = 128                                                      [AGG_B]
  h3                VCPU 4, lowered to 3 after 4 were allocated; MEMORY_MB 8192            [AGG_B]
   └ h3-numa0       VCPU 5 x1.75 = 8 (8.75); trait COMPUTE_STATUS_DISABLED on this child,
                    which disables nothing (the rule reads the root's traits)
  pool-a (shares)   DISK_GB 10000 res 100 = 9900 (min 10, max 2000, step 10)              [AGG_A]
  pool-b (shares)   DISK_GB 5000 x1.25 = 6250                                       [AGG_B, AGG_C]
  idle              VCPU 32, MEMORY_MB 16384; nothing allocated                           [AGG_C]
  bare              no inventory

Consumers:

  c_span  INSTANCE  proj-a  h1 MEMORY 4096; numa0 VCPU 4, PCPU 2; nic VF 1, BW 100000; pool-a DISK 100
  c_mig   MIGRATION proj-a  h1 MEMORY 2048; numa1 VCPU 2; h3 MEMORY 2048, VCPU 2 (two hosts)
  c_dis1  INSTANCE  proj-b  h2 MEMORY 1024; h2-numa0 VCPU 2; pool-b DISK 50
  c_dis2  INSTANCE  proj-b  h2 MEMORY 2048; h2-numa0 VCPU 4
  c_h3    INSTANCE  proj-b  h3 VCPU 2; then, behind the API: h3 PCPU 1, h3 CUSTOM_LEGACY 3
                            (classes h3 has no inventory of)
  c_h3n   INSTANCE  proj-b  h3-numa0 VCPU 6
  c_pool  INSTANCE  proj-c  pool-b DISK 500
  c_empty (none)    proj-c  no allocations (written behind the API)
"""
import uuid as uuidlib

from allocations.models import Allocation, Consumer, Project, User
from providers.models import ResourceProvider
from resource_classes.models import ResourceClass

MV = "1.39"
AGG_A = "aaaaaaaa-0000-4000-8000-00000000000a"
AGG_B = "bbbbbbbb-0000-4000-8000-00000000000b"
AGG_C = "cccccccc-0000-4000-8000-00000000000c"
DISABLED = "COMPUTE_STATUS_DISABLED"
SHARES = "MISC_SHARES_VIA_AGGREGATE"
BW = "NET_BW_EGR_KILOBIT_PER_SEC"


def _uuid(name):
    return str(uuidlib.uuid5(uuidlib.NAMESPACE_DNS, f"{name}.figures.test"))


def _inv(total, reserved=0, ratio=1.0, min_unit=1, max_unit=None, step=1):
    return {"total": total, "reserved": reserved, "allocation_ratio": ratio,
            "min_unit": min_unit, "max_unit": max_unit or total, "step_size": step}


PROVIDERS = {
    # name: (parent, inventories, traits, aggregates)
    "h1": (None, {"MEMORY_MB": _inv(65536, 4096, 1.5, 256, 32768, 256)}, [], [AGG_A]),
    "h1-numa0": ("h1", {"VCPU": _inv(16, 2, 4.0), "PCPU": _inv(8)}, [], []),
    "h1-numa0-nic": ("h1-numa0", {"CUSTOM_NIC_VF": _inv(8, 1),
                                  BW: _inv(10_000_000, 1_000_000, 1.0, 1000, None, 1000)},
                     ["CUSTOM_PHYSNET_A"], []),
    "h1-numa1": ("h1", {"VCPU": _inv(15, 0, 0.75), "PCPU": _inv(8, 1)}, [], [AGG_C]),
    "h2": (None, {"MEMORY_MB": _inv(32768, 512)}, [DISABLED], []),
    "h2-numa0": ("h2", {"VCPU": _inv(8, 0, 16.0)}, [], [AGG_B]),
    "h3": (None, {"VCPU": _inv(4), "MEMORY_MB": _inv(8192)}, [], [AGG_B]),
    "h3-numa0": ("h3", {"VCPU": _inv(5, 0, 1.75, 1, 8)}, [DISABLED], []),
    "pool-a": (None, {"DISK_GB": _inv(10000, 100, 1.0, 10, 2000, 10)}, [SHARES], [AGG_A]),
    "pool-b": (None, {"DISK_GB": _inv(5000, 0, 1.25)}, [SHARES], [AGG_B, AGG_C]),
    "idle": (None, {"VCPU": _inv(32), "MEMORY_MB": _inv(16384)}, [], [AGG_C]),
    "bare": (None, {}, [], []),
}

CONSUMERS = {
    # name: (type, project, {provider: {class: amount}})
    "c_span": ("INSTANCE", "proj-a", {
        "h1": {"MEMORY_MB": 4096}, "h1-numa0": {"VCPU": 4, "PCPU": 2},
        "h1-numa0-nic": {"CUSTOM_NIC_VF": 1, BW: 100000}, "pool-a": {"DISK_GB": 100}}),
    "c_mig": ("MIGRATION", "proj-a", {
        "h1": {"MEMORY_MB": 2048}, "h1-numa1": {"VCPU": 2},
        "h3": {"MEMORY_MB": 2048, "VCPU": 2}}),
    "c_dis1": ("INSTANCE", "proj-b", {
        "h2": {"MEMORY_MB": 1024}, "h2-numa0": {"VCPU": 2}, "pool-b": {"DISK_GB": 50}}),
    "c_dis2": ("INSTANCE", "proj-b", {"h2": {"MEMORY_MB": 2048}, "h2-numa0": {"VCPU": 4}}),
    "c_h3": ("INSTANCE", "proj-b", {"h3": {"VCPU": 2}}),
    "c_h3n": ("INSTANCE", "proj-b", {"h3-numa0": {"VCPU": 6}}),
    "c_pool": ("INSTANCE", "proj-c", {"pool-b": {"DISK_GB": 500}}),
}
# Written behind the API: allocations of classes h3 has no inventory of.
ORPHANS = {"c_h3": {"h3": {"PCPU": 1, "CUSTOM_LEGACY": 3}}}
EMPTY = {"c_empty": "proj-c"}


class Cloud:
    """The uuids of what was built, by name."""

    def __init__(self):
        self.rp = {name: _uuid(name) for name in PROVIDERS}
        self.consumer = {name: _uuid(name) for name in [*CONSUMERS, *EMPTY]}

    def name_of(self, uuid):
        return {**{u: n for n, u in self.rp.items()},
                **{u: n for n, u in self.consumer.items()}}[uuid]


def _ok(response, *codes):
    assert response.status_code in (codes or (200, 201, 204)), (
        response.status_code, response.content[:500])
    return response.json() if response.content and response["Content-Type"].startswith(
        "application/json") else None


def build(api) -> Cloud:
    cloud = Cloud()
    for rc in ("CUSTOM_NIC_VF", "CUSTOM_LEGACY"):
        _ok(api.put(f"/resource_classes/{rc}", mv=MV))
    _ok(api.put("/traits/CUSTOM_PHYSNET_A", mv=MV))
    for name, (parent, inventories, traits, aggregates) in PROVIDERS.items():
        body = {"name": name, "uuid": cloud.rp[name]}
        if parent:
            body["parent_provider_uuid"] = cloud.rp[parent]
        _ok(api.post("/resource_providers", json=body, mv=MV))
        base = f"/resource_providers/{cloud.rp[name]}"
        for path, key, value in (("inventories", "inventories", inventories),
                                 ("traits", "traits", traits),
                                 ("aggregates", "aggregates", aggregates)):
            if not value:
                continue
            generation = _ok(api.get(base, mv=MV))["generation"]
            _ok(api.put(f"{base}/{path}", json={key: value,
                                               "resource_provider_generation": generation},
                        mv=MV))
    for name, (ctype, project, holds) in CONSUMERS.items():
        _ok(api.put(f"/allocations/{cloud.consumer[name]}", mv=MV, json={
            "allocations": {cloud.rp[rp]: {"resources": amounts} for rp, amounts in holds.items()},
            "project_id": project, "user_id": f"user-{project[-1]}",
            "consumer_generation": None, "consumer_type": ctype}))
    # Over capacity: h3's VCPU lowered below the 4 allocated (the API warns, and allows it).
    base = f"/resource_providers/{cloud.rp['h3']}/inventories/VCPU"
    generation = _ok(api.get(base, mv=MV))["resource_provider_generation"]
    _ok(api.put(base, mv=MV, json={**_inv(3), "resource_provider_generation": generation}))
    # What the API refuses: allocations of a class without inventory, an empty consumer.
    for consumer, holds in ORPHANS.items():
        c = Consumer.objects.get(uuid=cloud.consumer[consumer])
        for rp, amounts in holds.items():
            for rc, n in amounts.items():
                Allocation.objects.create(
                    consumer=c, resource_provider=ResourceProvider.objects.get(uuid=cloud.rp[rp]),
                    resource_class=ResourceClass.objects.get(name=rc), used=n)
    for consumer, project in EMPTY.items():
        Consumer.objects.create(uuid=cloud.consumer[consumer],
                                project=Project.objects.get_or_create(external_id=project)[0],
                                user=User.objects.get_or_create(external_id="user-c")[0],
                                generation=1)
    return cloud
