"""Names, not uuids: providers by name, consumers by kind, aggregates by
their members, each a link; the consumer list's hosts, resources and age;
the MIGRATION consumer labelled where it holds a host."""
import re
import uuid

import pytest
from django.utils.html import strip_tags

from tests.console.api_cloud import MV, api_allocate, api_provider

pytestmark = pytest.mark.django_db


@pytest.fixture
def moving(api):
    """An instance moving from src to dst (Nova's way: the MIGRATION
    consumer holds the source, the instance the destination), a volume
    pool shared through an aggregate."""
    agg = str(uuid.uuid4())
    pool = api_provider(api, "volume-pool", inventory={"DISK_GB": 2000},
                     traits=["MISC_SHARES_VIA_AGGREGATE"], aggregates=[agg])
    src = api_provider(api, "src-host", inventory={"MEMORY_MB": 32768}, aggregates=[agg])
    src_numa = api_provider(api, "src-host-numa0", parent=src, inventory={"VCPU": 16})
    dst = api_provider(api, "dst-host", inventory={"MEMORY_MB": 32768}, aggregates=[agg])
    dst_numa = api_provider(api, "dst-host-numa0", parent=dst, inventory={"VCPU": 16})
    instance = api_allocate(api, {src: {"MEMORY_MB": 4096}, src_numa: {"VCPU": 2},
                               pool: {"DISK_GB": 40}})
    migration = str(uuid.uuid4())
    resp = api.post("/allocations", mv=MV, json={
        migration: {"allocations": {src: {"resources": {"MEMORY_MB": 4096}},
                                    src_numa: {"resources": {"VCPU": 2}},
                                    pool: {"resources": {"DISK_GB": 40}}},
                    "project_id": "p", "user_id": "u", "consumer_generation": None,
                    "consumer_type": "MIGRATION"},
        instance: {"allocations": {dst: {"resources": {"MEMORY_MB": 4096}},
                                   dst_numa: {"resources": {"VCPU": 2}},
                                   pool: {"resources": {"DISK_GB": 40}}},
                   "project_id": "p", "user_id": "u", "consumer_generation": 1,
                   "consumer_type": "INSTANCE"}})
    assert resp.status_code == 204, resp.content
    return {"agg": agg, "pool": pool, "src": src, "src_numa": src_numa, "dst": dst,
            "dst_numa": dst_numa, "instance": instance, "migration": migration}


def test_provider_history_names_consumers_and_labels_the_migration(staff, api, moving):
    html = staff.get(f"/console/providers/{moving['src']}/").content.decode()
    consumers = html.split('id="consumers"', 1)[1].split("</table>", 1)[0]
    assert 'class="tag migration"' in consumers
    assert f'href="/console/consumers/{moving["migration"]}/"' in consumers
    assert f'>{moving["migration"]}<' not in consumers  # the short form, not the uuid
    hist = html.split('id="history"', 1)[1].split("</table>", 1)[0]
    # The instance's allocation came and went, the migration's came.
    assert f'href="/console/consumers/{moving["instance"]}/"' in hist
    assert "instance <span" in hist and "migration <span" in hist
    # The host's history covers its tree: one row per provider the migration
    # came to there, as the API's history of each says.
    tree = (moving["src"], moving["src_numa"])
    came = sum(1 for rp in tree for change in api.get(f"/history/providers/{rp}", mv=MV).json()["changes"]
               if change["consumer_uuid"] == moving["migration"])
    assert came == 2 and hist.count('class="tag migration"') == came
    assert not re.search(r'>\s*[0-9a-f]{8}-[0-9a-f]{4}-', hist)  # no bare uuid shown


def test_consumer_history_names_providers(staff, moving):
    html = staff.get(f"/console/consumers/{moving['instance']}/").content.decode()
    hist = html.split('id="history"', 1)[1].split("</table>", 1)[0]
    for name in ("src-host", "src-host-numa0", "dst-host", "dst-host-numa0", "volume-pool"):
        assert f">{name}</a>" in hist, name
    assert f'href="/console/providers/{moving["dst_numa"]}/"' in hist
    assert "consumer_label" not in html


def test_history_of_a_deleted_provider_shows_it_gone(staff, api, moving):
    api.delete(f"/allocations/{moving['migration']}", mv=MV)
    assert api.delete(f"/resource_providers/{moving['src_numa']}", mv=MV).status_code == 204
    # The consumer went with its allocations; its page shows what the
    # history recorded, the deletion last.
    gone = staff.get(f"/console/consumers/{moving['migration']}/").content.decode()
    assert 'id="gone"' in gone and "(DELETE /allocations)" in gone
    html = staff.get(f"/console/consumers/{moving['instance']}/").content.decode()
    hist = html.split('id="history"', 1)[1].split("</table>", 1)[0]
    assert f'title="{moving["src_numa"]} (deleted)">{moving["src_numa"][:8]}</span>' in hist


def test_aggregates_named_by_their_members_sharing_pool_first(staff, moving):
    html = staff.get(f"/console/providers/{moving['dst']}/").content.decode()
    aggs = html.split('<ul id="aggregates">', 1)[1].split("</ul>", 1)[0]
    assert strip_tags(aggs).strip() == "volume-pool, dst-host, src-host"
    assert f'href="/console/providers/?aggregate={moving["agg"]}"' in aggs
    assert f'title="aggregate {moving["agg"]}"' in aggs


def test_consumer_list_gains_hosts_resources_and_age(staff, moving):
    html = staff.get("/console/consumers/").content.decode()
    table = html.split('id="consumer-list"', 1)[1].split("</table>", 1)[0]
    rows = {m: row for row in table.split("<tr")[2:] for m in (moving["instance"],
                                                                 moving["migration"]) if m in row}
    instance, migration = rows[moving["instance"]], rows[moving["migration"]]
    # Hosts: the roots of the trees it holds (a NUMA cell counts as its host),
    # the sharing pool as its own; amounts summed per class over providers.
    assert re.findall(r'/console/providers/[^/]+/">([^<]+)</a>', instance) == [
        "dst-host", "volume-pool"]
    assert re.findall(r'/console/providers/[^/]+/">([^<]+)</a>', migration) == [
        "src-host", "volume-pool"]
    assert "DISK_GB " in instance and "40 GiB" in instance
    assert "MEMORY_MB " in instance and "4 GiB" in instance and "VCPU 2" in strip_tags(instance)
    assert 'class="tag migration"' in migration and "tag migration" not in instance
    assert "0\xa0minutes" in instance  # the age
    resp = staff.get("/console/consumers/", {"format": "csv"})
    assert b"created_at" in b"".join(resp.streaming_content)


def test_headroom_and_usage_name_aggregates(staff, moving, settings):
    settings.PLACEMENT_FLAVORS = []
    from planning import flavor_services

    flavor_services.flavor_create(name="small", resources="VCPU:1,MEMORY_MB:512")
    html = staff.get("/console/").content.decode()
    headroom = html.split('id="headroom"', 1)[1].split("</table>", 1)[0]
    assert ">volume-pool, dst-host, src-host</a>" in headroom
