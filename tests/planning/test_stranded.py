"""Stranded capacity means free capacity no known flavor can use on its
tree (with the sharing pools the tree reaches): the same figures on the
API, the Usage page, ``capacity_forecast`` and the gauges, counted by hand
from the inventories and usages of a nested cloud with sharing pools."""
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from placement_core.querystring import Flavor
from planning import forecast, metrics as planning_metrics
from tests.commands.helpers import run
from tests.factories import FlavorFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def cloud(world):
    """Hosts h1 to h3 (a root with memory, NUMA cells with VCPU and PCPU), a
    pool of disk for rack "a" and an idle pool in an aggregate no host is in."""
    rack, lonely = world.aggregate(), world.aggregate()
    pool = world.provider("pool-a", inventory={"DISK_GB": 1000},
                          traits=["MISC_SHARES_VIA_AGGREGATE"], aggs=[rack])
    world.consumer({pool: {"DISK_GB": 100}})
    world.provider("pool-b", inventory={"DISK_GB": 500},
                   traits=["MISC_SHARES_VIA_AGGREGATE"], aggs=[lonely])
    # h1: numa0's PCPU all pinned, numa1 has PCPU left. The old rule called
    # numa0's 8 VCPU stranded; a shared-CPU flavor takes them.
    h1 = world.provider("h1", inventory={"MEMORY_MB": 16384}, aggs=[rack])
    n0 = world.provider("h1-numa0", parent=h1, inventory={"PCPU": 4, "VCPU": 8})
    world.provider("h1-numa1", parent=h1, inventory={"PCPU": 4, "VCPU": 8})
    world.provider("h1-nic", parent=h1, inventory={"SRIOV_NET_VF": 8})
    world.consumer({h1: {"MEMORY_MB": 4096}, n0: {"PCPU": 4}, pool: {"DISK_GB": 20}})
    # h2: 1024 MB of memory left, less than either flavor asks.
    h2 = world.provider("h2", inventory={"MEMORY_MB": 8192}, aggs=[rack])
    world.provider("h2-numa0", parent=h2, inventory={"VCPU": 16, "PCPU": 4})
    world.consumer({h2: {"MEMORY_MB": 7168}})
    # h3: no aggregate, so no disk for flavors that all ask for disk.
    world.provider("h3", inventory={"MEMORY_MB": 8192, "VCPU": 8})
    # Left out: a disabled host.
    world.provider("off", inventory={"VCPU": 8, "MEMORY_MB": 8192},
                   traits=["COMPUTE_STATUS_DISABLED"], aggs=[rack])
    FlavorFactory(name="shared", resources="VCPU:2,MEMORY_MB:2048,DISK_GB:20")
    FlavorFactory(name="pinned", resources="PCPU:2,MEMORY_MB:4096,DISK_GB:20")


# By hand, per tree, does an instance of some flavor fit (every class from
# the tree or a pool it reaches), and which providers can give its classes:
#   h1: memory 12288 free, pool-a 880 GiB; "shared" fits (numa0 and numa1
#       VCPU), "pinned" fits (numa1 PCPU 4): nothing stranded; the NIC's VFs
#       are asked for by no flavor and not judged.
#   h2: memory 1024 < 2048 and < 4096: nothing fits: VCPU 16, PCPU 4 and
#       MEMORY_MB 1024 stranded, short of MEMORY_MB.
#   h3: no pool reached, no DISK_GB: VCPU 8 and MEMORY_MB 8192 stranded,
#       short of DISK_GB (what "shared", the nearest, lacks; "pinned" lacks
#       PCPU too).
#   pool-a: h1 uses it. pool-b: no tree reaches it: 500 GiB stranded.
#   off: disabled, left out.
EXPECTED = {
    "DISK_GB": {"amount": 500, "providers": 1, "listed": [("pool-b", 500, 500, [])]},
    "MEMORY_MB": {"amount": 8192 + 1024, "providers": 2, "listed": [
        ("h3", 8192, 8192, ["DISK_GB"]), ("h2", 1024, 8192, ["MEMORY_MB"])]},
    "PCPU": {"amount": 4, "providers": 1, "listed": [("h2-numa0", 4, 4, ["MEMORY_MB"])]},
    "VCPU": {"amount": 16 + 8, "providers": 2, "listed": [
        ("h2-numa0", 16, 16, ["MEMORY_MB"]), ("h3", 8, 8, ["DISK_GB"])]},
}


def _short(found):
    return {rc: {"amount": e["amount"], "providers": e["providers"],
                 "listed": [(p["name"], p["free"], p["capacity"], p["exhausted"])
                            for p in e["listed"]]} for rc, e in found.items()}


def test_stranded_is_what_no_flavor_can_use(cloud):
    assert _short(forecast.stranded()) == EXPECTED
    # show= lists the most first, counting all of them.
    shown = forecast.stranded(show=1)
    assert [p["name"] for p in shown["MEMORY_MB"]["listed"]] == ["h3"]
    assert shown["MEMORY_MB"]["providers"] == 2


def test_api_command_page_and_gauge_agree(cloud, settings):
    admin = {"HTTP_X_AUTH_TOKEN": "admin"}
    body = json.loads(Client().get("/planning/forecast", **admin).content)
    assert _short(body["stranded"]) == EXPECTED
    assert body["stranded_shapes"] == {"default": False, "flavors": {
        "pinned": "PCPU:2,MEMORY_MB:4096,DISK_GB:20", "shared": "VCPU:2,MEMORY_MB:2048,DISK_GB:20"}}
    code, out = run("capacity_forecast", "--json")
    assert _short(json.loads(out)["stranded"]) == EXPECTED
    code, text = run("capacity_forecast")
    assert "h2-numa0" in text and "h1-numa0" not in text
    client = Client()
    client.force_login(get_user_model().objects.create_user("op", password="pw", is_staff=True))
    page = client.get("/console/usage/").content.decode()
    section = page.split('id="stranded"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr><td>(\w+)</td><td class=\"num\">.*?data-sort=\"(\d+)\".*?"
                      r"<td class=\"num\">(\d+)</td>", section, re.S)
    assert {rc: (int(raw), int(n)) for rc, raw, n in rows} == {
        rc: (e["amount"], e["providers"]) for rc, e in EXPECTED.items()}
    assert "h1-numa0" not in section and "pool-b" in section
    assert "no enabled host reaches it" in section and "short of MEMORY_MB" in section
    assert "pinned" in page.split('id="stranded-title"', 1)[1]
    settings.PLACEMENT_METRICS_CACHE_SECONDS = 0
    planning_metrics.clear_cache()
    metrics = Client().get("/metrics", **admin).content.decode()
    for rc, e in EXPECTED.items():
        assert f'placement_stranded_capacity{{resource_class="{rc}"}} {e["amount"]}.0' in metrics
        assert (f'placement_stranded_providers{{resource_class="{rc}"}} '
                f'{e["providers"]}.0') in metrics
    assert 'placement_stranded_capacity{resource_class="SRIOV_NET_VF"}' not in metrics


def test_setting_flavors_count_too(cloud, settings):
    # A diskless flavor in PLACEMENT_FLAVORS uses h3's VCPU and memory.
    settings.PLACEMENT_FLAVORS = [Flavor("bfv", {"VCPU": 1, "MEMORY_MB": 1024})]
    # h2's 1024 MB takes one "bfv" too; its PCPU still fits no pinned one.
    assert _short(forecast.stranded()) == {"DISK_GB": EXPECTED["DISK_GB"],
                                           "PCPU": EXPECTED["PCPU"]}


def test_default_shapes_when_no_flavor_is_known(world, settings):
    """No stored flavor, no PLACEMENT_FLAVORS: the stated default shapes (shared
    or dedicated CPU with 512 MB, with or without 10 GB of disk)."""
    settings.PLACEMENT_FLAVORS = []
    host = world.provider("cn", inventory={"MEMORY_MB": 4096})
    cell = world.provider("cn-numa0", parent=host, inventory={"PCPU": 2, "VCPU": 16})
    world.consumer({host: {"MEMORY_MB": 1024}, cell: {"PCPU": 2}})
    full = world.provider("full", inventory={"MEMORY_MB": 4096, "VCPU": 4})
    world.consumer({full: {"MEMORY_MB": 4096}})
    assert [f.name for f in forecast.DEFAULT_SHAPES] == [
        "default-shared-cpu", "default-dedicated-cpu", "default-shared-cpu-disk",
        "default-dedicated-cpu-disk"]
    # cn-numa0's VCPU is free for a shared-CPU shape: nothing on cn is stranded;
    # "full" has no memory left: its 4 VCPU are.
    assert _short(forecast.stranded()) == {"VCPU": {"amount": 4, "providers": 1, "listed": [
        ("full", 4, 4, ["MEMORY_MB"])]}}
    shapes = forecast.report()["stranded_shapes"]
    assert shapes["default"] is True and shapes["flavors"]["default-shared-cpu"] == \
        "VCPU:1,MEMORY_MB:512"
