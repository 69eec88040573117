"""The second count: every figure the console shows, worked out from the
Placement API's own answers (GET /resource_providers, .../inventories,
.../allocations, .../traits, .../aggregates) with plain arithmetic here,
none of the console's code."""
import math

MV = "1.39"
DISABLED = "COMPUTE_STATUS_DISABLED"
SHARES = "MISC_SHARES_VIA_AGGREGATE"


class Reference:
    def __init__(self, api):
        listing = api.get("/resource_providers", mv=MV).json()["resource_providers"]
        self.rp = {}
        for p in listing:
            u = p["uuid"]
            base = f"/resource_providers/{u}"
            self.rp[u] = {
                "name": p["name"], "parent": p["parent_provider_uuid"],
                "root": p["root_provider_uuid"],
                "inventories": api.get(f"{base}/inventories", mv=MV).json()["inventories"],
                "allocations": api.get(f"{base}/allocations", mv=MV).json()["allocations"],
                "traits": set(api.get(f"{base}/traits", mv=MV).json()["traits"]),
                "aggregates": set(api.get(f"{base}/aggregates", mv=MV).json()["aggregates"]),
            }
        self.by_name = {p["name"]: u for u, p in self.rp.items()}

    # -- one provider ------------------------------------------------------------

    def u(self, name):
        return self.by_name[name]

    def capacity(self, u, rc):
        inv = self.rp[u]["inventories"].get(rc)
        return math.floor((inv["total"] - inv["reserved"]) * inv["allocation_ratio"]) if inv else 0

    def used(self, u, rc):
        return sum(a["resources"].get(rc, 0) for a in self.rp[u]["allocations"].values())

    def classes(self, u):
        """Classes with inventory or allocations on the provider."""
        held = {rc for a in self.rp[u]["allocations"].values() for rc in a["resources"]}
        return sorted(set(self.rp[u]["inventories"]) | held)

    def fraction(self, u, rc):
        cap, used = self.capacity(u, rc), self.used(u, rc)
        return used / cap if cap > 0 else (1.0 if used else 0.0)

    def fullness(self, u, rc=None):
        """Fullest inventory class (or ``rc``); None without inventory of it."""
        classes = [rc] if rc else list(self.rp[u]["inventories"])
        values = [self.fraction(u, c) for c in classes if c in self.rp[u]["inventories"]]
        return max(values) if values else None

    def free(self, u, rc):
        """What one more allocation may still take: nothing below zero."""
        if rc not in self.rp[u]["inventories"]:
            return 0
        return max(self.capacity(u, rc) - self.used(u, rc), 0)

    def disabled(self, u):
        return DISABLED in self.rp[self.rp[u]["root"]]["traits"]

    def sharing(self, u):
        return SHARES in self.rp[u]["traits"]

    def tree(self, root):
        return [u for u, p in self.rp.items() if p["root"] == root]

    def consumers(self, u):
        return set(self.rp[u]["allocations"])

    def in_aggregate(self, u, agg):
        """A provider counts in an aggregate when it or its root is a member."""
        return agg in self.rp[u]["aggregates"] or agg in self.rp[self.rp[u]["root"]]["aggregates"]

    # -- the cloud -------------------------------------------------------------------

    def all_classes(self):
        return sorted({rc for u in self.rp for rc in self.classes(u)})

    def class_total(self, rc):
        invs = [p["inventories"][rc] for p in self.rp.values() if rc in p["inventories"]]
        return {
            "total": sum(i["total"] for i in invs),
            "reserved": sum(i["reserved"] for i in invs),
            "capacity": sum(self.capacity(u, rc) for u in self.rp),
            "used": sum(self.used(u, rc) for u in self.rp),
            "free": sum(self.free(u, rc) for u in self.rp if not self.disabled(u)),
            "ratios": sorted({i["allocation_ratio"] for i in invs}),
        }

    def scope(self, agg):
        """{class: (capacity, used)} of the providers counted in ``agg`` ("" = all)."""
        out = {}
        for u in self.rp:
            if agg and not self.in_aggregate(u, agg):
                continue
            for rc in self.classes(u):
                cap, used = out.get(rc, (0, 0))
                out[rc] = (cap + self.capacity(u, rc), used + self.used(u, rc))
        return out
