"""A provider's trait links, written by either server, read back in one order.

Upstream reads a provider summary's traits without ORDER BY, so on PostgreSQL
it lists them in the order their rows were inserted, and it inserts a new
set's rows in the iteration order of a Python set of trait ids. This service
writes links in that same order, so whichever server wrote them, upstream
reads the same list (allocation-candidates-root-required's NUMA trait list,
through the random proxy).
"""
import uuid

import pytest

from tests.onedb import cloud
from tests.onedb.harness import Server, run_ours

pytestmark = pytest.mark.onedb


def _with_vcpu(base, name):
    rp = cloud.call(base, "POST", "/resource_providers",
                    {"name": name, "uuid": str(uuid.uuid4())})["uuid"]
    generation = cloud.call(base, "GET", f"/resource_providers/{rp}")["generation"]
    cloud.call(base, "PUT", f"/resource_providers/{rp}/inventories",
               {"resource_provider_generation": generation,
                "inventories": {"VCPU": {"total": 4}}})
    return rp


def _set_traits(base, rp, names):
    generation = cloud.call(base, "GET", f"/resource_providers/{rp}")["generation"]
    cloud.call(base, "PUT", f"/resource_providers/{rp}/traits",
               {"resource_provider_generation": generation, "traits": names})


def test_trait_links_written_by_either_server_read_back_alike(new_db):
    db = new_db("linkorder")
    assert run_ours(db, "placement-manage", "db", "sync").returncode == 0
    with Server("upstream", db) as upstream, Server("ours", db) as ours:
        standard_id = db.query("SELECT id FROM traits WHERE name = 'HW_NUMA_ROOT'")[0][0]
        # A custom trait whose id a set iterates before HW_NUMA_ROOT's, so that
        # ascending order and upstream's order differ (ids are the database's).
        custom = None
        for n in range(16):
            name = f"CUSTOM_LINK_ORDER_{n}"
            cloud.call(upstream.base, "PUT", f"/traits/{name}", expect=(201, 204))
            trait_id = db.query("SELECT id FROM traits WHERE name = %s", (name,))[0][0]
            if list({standard_id, trait_id}) != sorted([standard_id, trait_id]):
                custom = name
                break
        assert custom, "no custom trait id orders before HW_NUMA_ROOT's in a set"

        by_ours, by_upstream = _with_vcpu(ours.base, "by-ours"), _with_vcpu(ours.base, "by-up")
        _set_traits(ours.base, by_ours, ["HW_NUMA_ROOT", custom])
        _set_traits(upstream.base, by_upstream, ["HW_NUMA_ROOT", custom])

        def stored(rp):
            order = " ORDER BY l.ctid" if db.backend == "postgres" else ""
            return [name for (name,) in db.query(
                "SELECT t.name FROM resource_provider_traits l"
                " JOIN resource_providers p ON p.id = l.resource_provider_id"
                " JOIN traits t ON t.id = l.trait_id WHERE p.uuid = %s" + order,
                (rp,))]

        assert stored(by_ours) == stored(by_upstream)
        summaries = cloud.call(upstream.base, "GET",
                               "/allocation_candidates?resources=VCPU:1")["provider_summaries"]
        assert summaries[by_ours]["traits"] == summaries[by_upstream]["traits"]
