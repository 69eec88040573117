"""Drain what-if with a move in flight, as Nova makes one (one POST
/allocations: the MIGRATION consumer takes what the instance held on the
source host, the instance takes the destination's share). The move's two
halves are one thing: draining the source relocates neither (the instance
already has its place), and what the migration holds is released, never
booked a second time. With no target at all, one line per reason, with
the count and the consumers, not one line each."""
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from planning import drain
from tests.commands.helpers import run
from tests.console.api_cloud import MV, api_allocate, api_provider
from tests.console.hosts_cloud import host
from tests.support.api import PlacementClient

pytestmark = pytest.mark.django_db

NO_TARGET = "no tree can receive anything"


@pytest.fixture
def staff(db):
    client = Client()
    client.force_login(get_user_model().objects.create_user("op", password="pw", is_staff=True))
    return client


def flavor(rp, name, memory=4096, vcpu=4, disk=40):
    return {rp[name]: {"MEMORY_MB": memory}, rp[f"{name}-numa0"]: {"VCPU": vcpu},
            rp["pool"]: {"DISK_GB": disk}}


@pytest.fixture
def cloud(db):
    api = PlacementClient()
    assert api.put("/traits/CUSTOM_PHYSNET_DATA", mv=MV).status_code in (201, 204)
    agg = str(uuid.uuid4())
    rp = {"pool": api_provider(api, "pool", inventory={"DISK_GB": 4000},
                               traits=["MISC_SHARES_VIA_AGGREGATE"], aggregates=[agg])}
    for name in ("src", "dst", "spare"):
        rp.update(host(api, name, 65536, [(64, 0), (64, 0)], nic=8, aggregates=[agg]))
    stay = [api_allocate(api, flavor(rp, "src", vcpu=2 + i)) for i in range(6)]
    instance = api_allocate(api, flavor(rp, "src", memory=8192, vcpu=8, disk=80))
    migration = str(uuid.uuid4())
    # The move, as Nova writes it: one request, both consumers.
    gen = api.get(f"/allocations/{instance}", mv=MV).json()["consumer_generation"]
    resp = api.post("/allocations", mv=MV, json={
        migration: {"allocations": {u: {"resources": r} for u, r in
                                    flavor(rp, "src", memory=8192, vcpu=8, disk=80).items()},
                    "project_id": "p", "user_id": "u", "consumer_generation": None,
                    "consumer_type": "MIGRATION"},
        instance: {"allocations": {u: {"resources": r} for u, r in
                                   flavor(rp, "dst", memory=8192, vcpu=8, disk=80).items()},
                   "project_id": "p", "user_id": "u", "consumer_generation": gen,
                   "consumer_type": "INSTANCE"}})
    assert resp.status_code == 204, resp.content
    return {"api": api, "rp": rp, "stay": stay, "instance": instance, "migration": migration}


def usage(api, u):
    return api.get(f"/resource_providers/{u}/usages", mv=MV).json()["usages"]


def held(api, consumer):
    body = api.get(f"/allocations/{consumer}", mv=MV).json()["allocations"]
    return {(u, rc): n for u, a in body.items() for rc, n in a["resources"].items()}


def test_the_migration_is_not_moved_and_not_booked_twice(cloud):
    api, rp = cloud["api"], cloud["rp"]
    source = {u for name, u in rp.items() if name.startswith("src")}
    on_source = {c for u in source
                 for c in api.get(f"/resource_providers/{u}/allocations", mv=MV).json()[
                     "allocations"]}
    assert on_source == {*cloud["stay"], cloud["migration"]}
    result = drain.drain(providers=["src"], fullest=1000)
    assert result.fits
    assert {m.consumer for m in result.placed} == set(cloud["stay"])
    assert result.not_placed == []
    assert result.consumers == len(cloud["stay"])
    [move] = result.in_flight
    assert move["consumer"] == cloud["migration"] and move["instance"] == cloud["instance"]
    assert [h["name"] for h in move["instance_on"]] == ["dst"]
    # Usage after, counted from the API: before, less what the migration
    # holds outside the source (its disk on the pool: the move releases
    # it), plus what the placed instances land; nothing for the migration.
    landed = {}
    for m in result.placed:
        for e in m.to:
            for rc, n in e["resources"].items():
                landed[(e["uuid"], rc)] = landed.get((e["uuid"], rc), 0) + n
    released = {k: n for k, n in held(api, cloud["migration"]).items() if k[0] not in source}
    after = {(f["uuid"], f["resource_class"]): f["used"] for f in result.fullest_after}
    for (u, rc), used in after.items():
        expected = usage(api, u).get(rc, 0) - released.get((u, rc), 0) + landed.get((u, rc), 0)
        assert used == expected, (u, rc)
    assert after[(rp["pool"], "DISK_GB")] == usage(api, rp["pool"])["DISK_GB"] - 80
    # The API answers the same.
    body = api.get(f"/planning/drain?provider={rp['src']}", mv=MV).json()
    assert body["in_flight"] == [move]
    assert cloud["migration"] not in {m["consumer"] for m in body["placed"] + body["not_placed"]}


def test_console_and_command_show_the_move_once(staff, cloud):
    short = cloud["migration"][:8]
    page = staff.get("/console/drain/", {"provider": cloud["rp"]["src"]}).content.decode()
    placed = page.split('id="placed"')[1].split("</table>")[0]
    assert short not in placed
    in_flight = page.split('id="in-flight"')[1].split("</table>")[0]
    assert short in in_flight and cloud["instance"][:8] in in_flight and ">dst</a>" in in_flight
    code, out = run("drain_what_if", "--provider", "src")
    assert code == 0
    assert out.count(short) == 1 and "in flight" in out


def test_no_target_is_said_once_with_the_count(staff, cloud):
    api = cloud["api"]
    assert api.put("/traits/CUSTOM_NOWHERE", mv=MV).status_code in (201, 204)
    query = {"provider": cloud["rp"]["src"], "required": "CUSTOM_NOWHERE"}
    result = drain.drain(providers=["src"], required=["CUSTOM_NOWHERE"])
    assert len(result.not_placed) == len(cloud["stay"]) == 6
    page = staff.get("/console/drain/", query).content.decode()
    assert page.count(NO_TARGET) == 1
    table = page.split('id="not-placed"')[1].split("</table>")[0]
    assert "6 consumers" in table
    for consumer in cloud["stay"]:
        assert consumer[:8] in table
    code, out = run("drain_what_if", "--provider", "src", "--required", "CUSTOM_NOWHERE")
    assert code == 1 and out.count(NO_TARGET) == 1 and "6 consumers" in out


def test_the_host_picker_filters(staff, cloud):
    page = staff.get("/console/drain/").content.decode()
    assert 'id="host-filter"' in page
    page = staff.get("/console/drain/", {"find": "SPA"}).content.decode()
    picker = page.split('id="pick-hosts"')[1].split("</select>")[0]
    assert ">spare</option>" in picker and ">src</option>" not in picker
    assert 'id="verdict"' not in page and 'id="problem"' not in page
    # What is picked stays listed (and picked) whatever the filter.
    page = staff.get("/console/drain/", {"find": "spa", "provider": cloud["rp"]["src"],
                                         "pick": "1"}).content.decode()
    picker = page.split('id="pick-hosts"')[1].split("</select>")[0]
    assert f'value="{cloud["rp"]["src"]}" selected>src</option>' in picker
    assert 'id="verdict"' not in page


def test_novas_two_step_move_is_paired(db):
    """Nova's own order: one POST /allocations gives the source to the
    migration and empties the instance, then the instance claims its
    destination in a request of its own; the first write pairs them."""
    api = PlacementClient()
    assert api.put("/traits/CUSTOM_PHYSNET_DATA", mv=MV).status_code in (201, 204)
    agg = str(uuid.uuid4())
    rp = {"pool": api_provider(api, "pool", inventory={"DISK_GB": 4000},
                               traits=["MISC_SHARES_VIA_AGGREGATE"], aggregates=[agg])}
    for name in ("src", "dst"):
        rp.update(host(api, name, 65536, [(64, 0)], aggregates=[agg]))
    other = api_allocate(api, flavor(rp, "dst"))  # written alone: no pair
    instance = api_allocate(api, flavor(rp, "src"))
    migration = str(uuid.uuid4())
    gen = api.get(f"/allocations/{instance}", mv=MV).json()["consumer_generation"]
    assert api.post("/allocations", mv=MV, json={
        migration: {"allocations": {u: {"resources": r} for u, r in flavor(rp, "src").items()},
                    "project_id": "p", "user_id": "u", "consumer_generation": None,
                    "consumer_type": "MIGRATION"},
        instance: {"allocations": {}, "project_id": "p", "user_id": "u",
                   "consumer_generation": gen, "consumer_type": "INSTANCE"}}).status_code == 204
    assert api.put(f"/allocations/{instance}", mv=MV, json={
        "allocations": {u: {"resources": r} for u, r in flavor(rp, "dst").items()},
        "project_id": "p", "user_id": "u", "consumer_generation": None,
        "consumer_type": "INSTANCE"}).status_code == 204
    [move] = drain.drain(providers=["src"]).in_flight
    assert move["instance"] == instance != other
    assert [h["name"] for h in move["instance_on"]] == ["dst"]
