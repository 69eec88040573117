"""The real OpenStack clients against this service under gunicorn.

`openstack` (python-openstackclient + osc-placement) and openstacksdk's
placement proxy, pinned in requirements-clients.txt, installed in a cached
throwaway virtualenv, driven through tests/clients/driver.py.  Each test
drives one command family and asserts what the client shows; the last one
checks the server never answered 500.  Run with `make test-clients`
(PLACEMENT_CLIENTS_TEST=1); skipped otherwise.
"""
import json
import re
import subprocess
import time
import uuid

import pytest

from tests.clients.environment import Clients, PlacementServer, ensure_venv, log

pytestmark = pytest.mark.clients

AGG_A = "11111111-1111-4111-8111-111111111111"
AGG_B = "22222222-2222-4222-8222-222222222222"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    started = time.monotonic()
    venv = ensure_venv()
    venv_time = time.monotonic() - started
    server = PlacementServer(tmp_path_factory.mktemp("placement-clients"))
    server.start()
    clients = Clients(venv, server.url)
    log(f"setup: venv {venv_time:.1f}s, total {time.monotonic() - started:.1f}s")
    try:
        yield {"venv": venv, "server": server, "clients": clients}
    finally:
        clients.close()
        server.stop()


@pytest.fixture
def c(env):
    return env["clients"]


def _name(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _provider(c, name=None, parent=None, mv="1.39"):
    args = ["resource", "provider", "create", name or _name("rp")]
    if parent:
        args += ["--parent-provider", parent]
    return c.cli_json(*args, mv=mv)


def _failed(answer, status, text=None):
    assert answer["rc"] != 0, answer
    assert f"(HTTP {status})" in answer["err"], answer
    if text is not None:
        assert text in answer["err"], answer


# --- the CLI ------------------------------------------------------------------

def test_openstack_entry_point_negotiates_version(env):
    """The real `openstack` binary, no version given: osc-placement negotiates."""
    venv, url = env["venv"], env["server"].url
    done = subprocess.run(
        [str(venv / "bin" / "openstack"), "--os-auth-type", "admin_token", "--os-token", "admin",
         "--os-endpoint", url, "resource", "provider", "list", "-f", "json",
         "-c", "uuid", "-c", "root_provider_uuid"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [] or "root_provider_uuid" in json.loads(done.stdout)[0]


@pytest.mark.parametrize("mv,fields", [
    ("1.0", {"uuid", "name", "generation"}),
    ("1.14", {"uuid", "name", "generation", "root_provider_uuid", "parent_provider_uuid"}),
    (None, {"uuid", "name", "generation", "root_provider_uuid", "parent_provider_uuid"}),
])
def test_cli_provider_fields_by_version(c, mv, fields):
    name = _name("fields")
    created = _provider(c, name, mv=mv or "1.20")
    shown = c.cli_json("resource", "provider", "show", created["uuid"], mv=mv)
    assert set(shown) == fields
    assert shown["name"] == name


def test_cli_providers(c):
    root = _provider(c, _name("root"))
    child = _provider(c, _name("child"), parent=root["uuid"])
    other = _provider(c, _name("other"))
    assert child["parent_provider_uuid"] == root["uuid"]
    assert child["root_provider_uuid"] == root["uuid"]

    listed = c.cli_json("resource", "provider", "list", "--name", root["name"], mv="1.39")
    assert [p["uuid"] for p in listed] == [root["uuid"]]
    tree = c.cli_json("resource", "provider", "list", "--in-tree", child["uuid"], mv="1.39")
    assert {p["uuid"] for p in tree} == {root["uuid"], child["uuid"]}
    assert c.cli_json("resource", "provider", "list", "--uuid", other["uuid"], mv="1.39")[0][
        "name"] == other["name"]

    renamed = c.cli_json("resource", "provider", "set", other["uuid"], "--name",
                         other["name"] + "-x", mv="1.39")
    assert renamed["name"] == other["name"] + "-x"
    # re-parenting: refused before 1.37, allowed from it
    _failed(c.cli("resource", "provider", "set", child["uuid"], "--name", child["name"],
                  "--parent-provider", other["uuid"], mv="1.14"), 400,
            "re-parenting a provider is not currently allowed")
    moved = c.cli_json("resource", "provider", "set", child["uuid"], "--name", child["name"],
                       "--parent-provider", other["uuid"], mv="1.39")
    assert moved["root_provider_uuid"] == other["uuid"]

    _failed(c.cli("resource", "provider", "create", root["name"], mv="1.39"), 409,
            f"Conflicting resource provider name: {root['name']} already exists")
    _failed(c.cli("resource", "provider", "show", str(uuid.uuid4()), mv="1.39"), 404)
    _failed(c.cli("resource", "provider", "delete", other["uuid"], mv="1.39"), 409)
    for rp in (child, other, root):
        assert c.cli("resource", "provider", "delete", rp["uuid"], mv="1.39")["rc"] == 0
    _failed(c.cli("resource", "provider", "delete", root["uuid"], mv="1.39"), 404)


def test_cli_inventories(c):
    rp = _provider(c)
    u = rp["uuid"]
    rows = c.cli_json("resource", "provider", "inventory", "set", u, "--resource", "VCPU=8",
                      "--resource", "VCPU:allocation_ratio=4.0", "--resource", "MEMORY_MB=2048",
                      "--resource", "DISK_GB:total=100", mv="1.39")
    by_class = {r["resource_class"]: r for r in rows}
    assert by_class["VCPU"]["total"] == 8 and by_class["VCPU"]["allocation_ratio"] == 4.0
    assert set(by_class) == {"VCPU", "MEMORY_MB", "DISK_GB"}

    rows = c.cli_json("resource", "provider", "inventory", "set", u, "--amend",
                      "--resource", "VCPU:reserved=1", "--resource", "PCI_DEVICE=2", mv="1.39")
    by_class = {r["resource_class"]: r for r in rows}
    assert by_class["VCPU"]["reserved"] == 1 and by_class["VCPU"]["total"] == 8
    assert by_class["PCI_DEVICE"]["total"] == 2 and "DISK_GB" in by_class

    shown = c.cli_json("resource", "provider", "inventory", "class", "set", u, "DISK_GB",
                       "--total", "200", "--reserved", "10", "--max_unit", "50", mv="1.39")
    assert (shown["total"], shown["reserved"], shown["max_unit"]) == (200, 10, 50)
    shown = c.cli_json("resource", "provider", "inventory", "show", u, "DISK_GB", mv="1.39")
    assert shown["used"] == 0 and shown["total"] == 200

    assert c.cli("resource", "provider", "inventory", "delete", u, "--resource-class",
                 "PCI_DEVICE", mv="1.39")["rc"] == 0
    listed = c.cli_json("resource", "provider", "inventory", "list", u, mv="1.0")
    assert {r["resource_class"] for r in listed} == {"VCPU", "MEMORY_MB", "DISK_GB"}

    _failed(c.cli("resource", "provider", "inventory", "set", u, "--resource", "VCPU=4",
                  "--resource", "VCPU:reserved=5", mv="1.39"), 400,
            "The reserved value is greater than total")
    _failed(c.cli("resource", "provider", "inventory", "set", u, "--resource", "NOPE=1",
                  mv="1.39"), 400, "No such resource class NOPE")
    _failed(c.cli("resource", "provider", "inventory", "show", u, "PCI_DEVICE", mv="1.39"), 404)

    assert c.cli("resource", "provider", "inventory", "delete", u, mv="1.39")["rc"] == 0
    assert c.cli_json("resource", "provider", "inventory", "list", u, mv="1.39") == []
    c.cli("resource", "provider", "delete", u, mv="1.39")


def test_cli_aggregates(c):
    rp = _provider(c)
    u = rp["uuid"]
    rows = c.cli_json("resource", "provider", "aggregate", "set", u, "--aggregate", AGG_A,
                      mv="1.1")
    assert [r["uuid"] for r in rows] == [AGG_A]
    generation = c.cli_json("resource", "provider", "show", u, mv="1.39")["generation"]
    _failed(c.cli("resource", "provider", "aggregate", "set", u, "--aggregate", AGG_B,
                  "--generation", str(generation + 5), mv="1.19"), 409,
            "generation already changed")
    rows = c.cli_json("resource", "provider", "aggregate", "set", u, "--aggregate", AGG_A,
                      "--aggregate", AGG_B, "--generation", str(generation), mv="1.19")
    assert sorted(r["uuid"] for r in rows) == [AGG_A, AGG_B]
    listed = c.cli_json("resource", "provider", "aggregate", "list", u, mv="1.39")
    assert sorted(r["uuid"] for r in listed) == [AGG_A, AGG_B]

    member = c.cli_json("resource", "provider", "list", "--member-of", AGG_B, mv="1.39")
    assert u in {p["uuid"] for p in member}
    both = c.cli_json("resource", "provider", "list", "--member-of", AGG_A, "--member-of",
                      AGG_B, mv="1.39")
    assert u in {p["uuid"] for p in both}
    # the reason is the last line of the error detail, which the CLI shows
    _failed(c.cli("resource", "provider", "aggregate", "set", u, "--aggregate", "abc",
                  mv="1.1"), 400, "is not a 'uuid'")
    c.cli("resource", "provider", "delete", u, mv="1.39")


def test_cli_traits(c):
    trait = "CUSTOM_" + uuid.uuid4().hex.upper()[:12]
    assert c.cli("trait", "create", trait, mv="1.6")["rc"] == 0
    assert c.cli_json("trait", "show", trait, mv="1.6") == {"name": trait}
    _failed(c.cli("trait", "show", "CUSTOM_NOT_THERE_AT_ALL", mv="1.6"), 404)
    names = {t["name"] for t in c.cli_json("trait", "list", "--name", "startswith:CUSTOM_",
                                            mv="1.6")}
    assert trait in names
    assert "HW_CPU_X86_AVX" in {t["name"] for t in c.cli_json("trait", "list", mv="1.6")}
    _failed(c.cli("trait", "create", "BAD_TRAIT", mv="1.6"), 400, "The trait is invalid")

    rp = _provider(c)
    u = rp["uuid"]
    rows = c.cli_json("resource", "provider", "trait", "set", u, "--trait", trait,
                      "--trait", "HW_CPU_X86_AVX", mv="1.6")
    assert sorted(r["name"] for r in rows) == sorted([trait, "HW_CPU_X86_AVX"])
    assert sorted(r["name"] for r in c.cli_json("resource", "provider", "trait", "list", u,
                                                mv="1.6")) == sorted([trait, "HW_CPU_X86_AVX"])
    assert trait in {t["name"] for t in c.cli_json("trait", "list", "--associated", mv="1.6")}
    assert u in {p["uuid"] for p in c.cli_json("resource", "provider", "list", "--required",
                                               trait, mv="1.39")}
    assert u not in {p["uuid"] for p in c.cli_json("resource", "provider", "list",
                                                   "--forbidden", trait, mv="1.39")}
    # any-of (1.39): the client sends required=in:A,B
    assert u in {p["uuid"] for p in c.cli_json("resource", "provider", "list", "--required",
                                               f"HW_CPU_X86_SSE,{trait}", mv="1.39")}
    _failed(c.cli("trait", "delete", trait, mv="1.6"), 409, "in use")
    _failed(c.cli("resource", "provider", "trait", "set", u, "--trait", "CUSTOM_NOT_THERE_X",
                  mv="1.6"), 400, "No such trait")
    assert c.cli("resource", "provider", "trait", "delete", u, mv="1.6")["rc"] == 0
    assert c.cli_json("resource", "provider", "trait", "list", u, mv="1.6") == []
    assert c.cli("trait", "delete", trait, mv="1.6")["rc"] == 0
    _failed(c.cli("trait", "delete", "HW_CPU_X86_AVX", mv="1.6"), 400,
            "Cannot delete standard trait")
    c.cli("resource", "provider", "delete", u, mv="1.39")


def test_cli_resource_classes(c):
    rc = "CUSTOM_" + uuid.uuid4().hex.upper()[:12]
    assert c.cli("resource", "class", "create", rc, mv="1.2")["rc"] == 0
    assert c.cli_json("resource", "class", "show", rc, mv="1.2") == {"name": rc}
    assert {"VCPU", rc} <= {r["name"] for r in c.cli_json("resource", "class", "list",
                                                          mv="1.2")}
    _failed(c.cli("resource", "class", "create", rc, mv="1.2"), 409)
    # the schema failure is the detail's last line, which is what the CLI prints
    _failed(c.cli("resource", "class", "create", "fake_class", mv="1.2"), 400,
            "JSON does not validate")
    rc2 = rc + "_SET"
    assert c.cli("resource", "class", "set", rc2, mv="1.7")["rc"] == 0
    assert c.cli("resource", "class", "set", rc2, mv="1.7")["rc"] == 0
    for name in (rc, rc2):
        assert c.cli("resource", "class", "delete", name, mv="1.2")["rc"] == 0
    _failed(c.cli("resource", "class", "delete", rc, mv="1.2"), 404)
    _failed(c.cli("resource", "class", "delete", "VCPU", mv="1.2"), 400,
            "Cannot delete standard resource class")


def test_cli_allocations_and_usages(c):
    root = _provider(c, _name("alloc-root"))
    child = _provider(c, _name("alloc-child"), parent=root["uuid"])
    c.cli_json("resource", "provider", "inventory", "set", root["uuid"], "--resource", "VCPU=8",
               "--resource", "MEMORY_MB=1024", mv="1.39")
    c.cli_json("resource", "provider", "inventory", "set", child["uuid"],
               "--resource", "SRIOV_NET_VF=4", mv="1.39")
    project, user = str(uuid.uuid4()), str(uuid.uuid4())
    c1, c2 = str(uuid.uuid4()), str(uuid.uuid4())
    ids = ["--project-id", project, "--user-id", user]

    rows = c.cli_json("resource", "provider", "allocation", "set", c1, "--allocation",
                      f"rp={root['uuid']},VCPU=2,MEMORY_MB=256", *ids, mv="1.12")
    assert rows[0]["resources"] == {"VCPU": 2, "MEMORY_MB": 256}
    assert rows[0]["project_id"] == project
    rows = c.cli_json("resource", "provider", "allocation", "set", c1, "--allocation",
                      f"rp={root['uuid']},VCPU=1", *ids, mv="1.28")
    assert rows[0]["resources"] == {"VCPU": 1}
    rows = c.cli_json("resource", "provider", "allocation", "set", c2,
                      "--allocation", f"rp={root['uuid']},VCPU=1",
                      "--allocation", f"rp={child['uuid']},SRIOV_NET_VF=2", *ids,
                      "--consumer-type", "INSTANCE", mv="1.38")
    assert {r["resource_provider"] for r in rows} == {root["uuid"], child["uuid"]}
    assert {r["consumer_type"] for r in rows} == {"INSTANCE"}
    shown = c.cli_json("resource", "provider", "allocation", "show", c2, mv="1.38")
    assert len(shown) == 2

    rows = c.cli_json("resource", "provider", "allocation", "unset", c2, "--provider",
                      child["uuid"], mv="1.39")
    assert [r["resource_provider"] for r in rows] == [root["uuid"]]
    # (unset re-sends the consumer's type, so it needs a typed consumer: an
    # untyped one reads back as "unknown", which no write accepts, upstream too)
    rows = c.cli_json("resource", "provider", "allocation", "unset", c2, "--resource-class",
                      "VCPU", mv="1.39")
    assert rows == []

    _failed(c.cli("resource", "provider", "allocation", "set", c1, "--allocation",
                  f"rp={root['uuid']},VCPU=1000", *ids, mv="1.28"), 409)

    usage = {r["resource_class"]: r["usage"] for r in c.cli_json(
        "resource", "provider", "usage", "show", root["uuid"], mv="1.39")}
    assert usage == {"VCPU": 1, "MEMORY_MB": 0}
    totals = {r["resource_class"]: r["usage"] for r in c.cli_json(
        "resource", "usage", "show", project, "--user-id", user, mv="1.9")}
    assert totals == {"VCPU": 1}
    by_type = {r["resource_class"]: r["usage"] for r in c.cli_json(
        "resource", "usage", "show", project, mv="1.38")}
    assert by_type == {"unknown": {"VCPU": 1, "consumer_count": 1}}

    shown = c.cli_json("resource", "provider", "show", root["uuid"], "--allocations",
                       mv="1.39")
    # From 1.28 each consumer comes with its generation, as upstream sends it;
    # c1 has been written twice above.
    assert shown["allocations"] == {c1: {"resources": {"VCPU": 1}, "consumer_generation": 2}}

    _failed(c.cli("resource", "provider", "delete", root["uuid"], mv="1.39"), 409)
    assert c.cli("resource", "provider", "allocation", "delete", c1, mv="1.39")["rc"] == 0
    _failed(c.cli("resource", "provider", "allocation", "delete", c1, mv="1.39"), 404)
    for rp in (child, root):
        assert c.cli("resource", "provider", "delete", rp["uuid"], mv="1.39")["rc"] == 0


def test_cli_allocation_candidates(c):
    agg = str(uuid.uuid4())
    trait = "CUSTOM_" + uuid.uuid4().hex.upper()[:12]
    c.cli("trait", "create", trait, mv="1.6")
    root = _provider(c, _name("cand-root"))
    child = _provider(c, _name("cand-child"), parent=root["uuid"])
    c.cli_json("resource", "provider", "inventory", "set", root["uuid"], "--resource",
               "VCPU=4", "--resource", "MEMORY_MB=2048", mv="1.39")
    c.cli_json("resource", "provider", "inventory", "set", child["uuid"], "--resource",
               "VGPU=2", mv="1.39")
    c.cli_json("resource", "provider", "trait", "set", root["uuid"], "--trait", trait, mv="1.6")
    generation = c.cli_json("resource", "provider", "show", root["uuid"], mv="1.39")["generation"]
    c.cli_json("resource", "provider", "aggregate", "set", root["uuid"], "--aggregate", agg,
               "--generation", str(generation), mv="1.19")

    def candidates(*args, mv="1.39"):
        return c.cli_json("allocation", "candidate", "list", *args, mv=mv)

    def providers(rows):
        return {r["resource provider"] for r in rows}

    rows = candidates("--resource", "VCPU=1", "--resource", "MEMORY_MB=512",
                      "--required", trait)
    assert providers(rows) == {root["uuid"]}
    assert rows[0]["allocation"] == "VCPU=1,MEMORY_MB=512"
    assert candidates("--resource", "VCPU=1", "--forbidden", trait, "--member-of", agg) == []
    assert providers(candidates("--resource", "VCPU=1", "--member-of", agg, mv="1.21")) == {
        root["uuid"]}
    assert len(candidates("--resource", "VCPU=1", "--limit", "1", mv="1.16")) <= 1
    rows = candidates("--resource", "VCPU=1", "--member-of", agg, "--group", "1",
                      "--resource", "VGPU=1", "--group-policy", "isolate")
    assert providers(rows) == {root["uuid"], child["uuid"]}
    # a --member-of after --group belongs to that group: the child is not in agg
    assert candidates("--resource", "VCPU=1", "--group", "1", "--resource", "VGPU=1",
                      "--member-of", agg, "--group-policy", "isolate") == []
    rows = candidates("--group", "1", "--resource", "VCPU=1", "--group", "2",
                      "--resource", "VGPU=1", "--group-policy", "none", mv="1.29")
    assert providers(rows) == {root["uuid"], child["uuid"]}
    # before 1.29 a tree with nested providers gives no candidates
    assert candidates("--group", "1", "--resource", "VCPU=1", "--group", "2",
                      "--resource", "VGPU=1", "--group-policy", "none", mv="1.25") == []
    assert providers(candidates("--resource", "VCPU=1", "--required",
                                f"{trait},HW_CPU_X86_AVX")) == {root["uuid"]}
    answer = c.cli("allocation", "candidate", "list", "--resource", "NOPE=1", mv="1.39")
    _failed(answer, 400, "No such resource class NOPE")
    for rp in (child, root):
        c.cli("resource", "provider", "delete", rp["uuid"], mv="1.39")
    c.cli("trait", "delete", trait, mv="1.6")


# --- openstacksdk ---------------------------------------------------------------

def test_sdk_providers(c):
    name = _name("sdk")
    created = c.sdk_ok("create_resource_provider", name=name)
    u = created["id"]
    assert created["generation"] == 0 and created["root_provider_id"] == u
    child = c.sdk_ok("create_resource_provider", name=name + "-child", parent_provider_uuid=u)
    assert child["parent_provider_id"] == u
    assert c.sdk_ok("get_resource_provider", u)["name"] == name
    assert c.sdk_ok("find_resource_provider", name)["id"] == u
    assert c.sdk_ok("find_resource_provider", u)["id"] == u
    assert c.sdk_ok("find_resource_provider", _name("missing")) is None
    assert [p["id"] for p in c.sdk_ok("resource_providers", name=name)] == [u]
    assert u in {p["id"] for p in c.sdk_ok("resource_providers")}
    assert c.sdk_ok("update_resource_provider", u, name=name + "-new")["name"] == name + "-new"
    assert c.sdk_ok("delete_resource_provider", child["id"]) is None
    assert c.sdk_ok("delete_resource_provider", u) is None
    missing = c.sdk("get_resource_provider", u)
    assert (missing["ok"], missing["status"]) == (False, 404)
    assert c.sdk_ok("delete_resource_provider", u) is None  # ignore_missing
    gone = c.sdk("delete_resource_provider", u, ignore_missing=False)
    assert gone["status"] == 404


def test_sdk_inventories(c):
    u = c.sdk_ok("create_resource_provider", name=_name("sdk-inv"))["id"]
    vcpu = c.sdk_ok("create_resource_provider_inventory", u, resource_class="VCPU", total=8,
                    allocation_ratio=4.0)
    assert (vcpu["total"], vcpu["allocation_ratio"]) == (8, 4.0)
    c.sdk_ok("create_resource_provider_inventory", u, resource_class="MEMORY_MB", total=1024)
    listed = {i["resource_class"]: i for i in c.sdk_ok("resource_provider_inventories", u)}
    assert set(listed) == {"VCPU", "MEMORY_MB"}
    got = c.sdk_ok("get_resource_provider_inventory", "VCPU", resource_provider=u)
    assert got["total"] == 8
    updated = c.sdk_ok("update_resource_provider_inventory", {"$inventory": [u, "VCPU"]},
                       total=16, resource_provider_generation=got["resource_provider_generation"])
    assert updated["total"] == 16
    stale = c.sdk("update_resource_provider_inventory", {"$inventory": [u, "VCPU"]}, total=4,
                  resource_provider_generation=got["resource_provider_generation"])
    assert stale["status"] == 409
    c.sdk_ok("delete_resource_provider_inventory", "MEMORY_MB", resource_provider=u)
    assert [i["resource_class"] for i in c.sdk_ok("resource_provider_inventories", u)] == ["VCPU"]
    generation = c.sdk_ok("get_resource_provider", u)["generation"]
    c.sdk_ok("set_resource_provider_inventories", u,
             {"DISK_GB": {"total": 100}, "VCPU": {"total": 2}}, generation)
    assert {i["resource_class"] for i in c.sdk_ok("resource_provider_inventories", u)} == {
        "DISK_GB", "VCPU"}
    c.sdk_ok("delete_resource_provider_inventories", u)
    assert c.sdk_ok("resource_provider_inventories", u) == []
    c.sdk_ok("delete_resource_provider", u)


def test_sdk_traits_classes_aggregates(c):
    trait = "CUSTOM_" + uuid.uuid4().hex.upper()[:12]
    assert c.sdk_ok("create_trait", trait)["name"] == trait
    assert c.sdk_ok("get_trait", trait)["id"] == trait
    assert trait in {t["name"] for t in c.sdk_ok("traits", name="startswith:CUSTOM_")}
    rc = "CUSTOM_" + uuid.uuid4().hex.upper()[:12]
    assert c.sdk_ok("create_resource_class", name=rc)["name"] == rc
    assert c.sdk_ok("get_resource_class", rc)["name"] == rc
    assert rc in {r["name"] for r in c.sdk_ok("resource_classes")}

    u = c.sdk_ok("create_resource_provider", name=_name("sdk-agg"))["id"]
    assert c.sdk_ok("get_resource_provider_trait", u)["traits"] == []
    # what openstacksdk's own functional test does: dash-less uuids, echoed as sent
    aggs = [uuid.uuid4().hex, uuid.uuid4().hex]
    result = c.sdk_ok("set_resource_provider_aggregates", {"$provider": u}, *aggs)
    assert sorted(result["aggregates"]) == sorted(aggs)
    fetched = c.sdk_ok("fetch_resource_provider_aggregates", u)
    assert sorted(fetched["aggregates"]) == sorted(aggs)
    dashed = str(uuid.UUID(aggs[0]))
    assert [p["id"] for p in c.sdk_ok("resource_providers", member_of=dashed)] == [u]

    c.sdk_ok("delete_resource_provider", u)
    c.sdk_ok("delete_trait", trait)
    assert c.sdk("get_trait", trait)["status"] == 404
    c.sdk_ok("delete_resource_class", rc)
    assert c.sdk("delete_resource_class", rc, ignore_missing=False)["status"] == 404


def test_sdk_allocations_candidates_usages(c):
    u = c.sdk_ok("create_resource_provider", name=_name("sdk-alloc"))["id"]
    generation = c.sdk_ok("get_resource_provider", u)["generation"]
    c.sdk_ok("set_resource_provider_inventories", u,
             {"VCPU": {"total": 8}, "MEMORY_MB": {"total": 2048}}, generation)
    project, user = str(uuid.uuid4()), str(uuid.uuid4())
    consumer, migration = str(uuid.uuid4()), str(uuid.uuid4())

    cands = c.sdk_ok("allocation_candidates", resources="VCPU:1,MEMORY_MB:512", in_tree=u)
    assert len(cands) == 1
    assert cands[0]["allocations"] == {u: {"resources": {"VCPU": 1, "MEMORY_MB": 512}}}
    assert set(cands[0]["provider_summaries"]) == {u}

    c.sdk_ok("update_allocation", consumer, allocations={u: {"resources": {"VCPU": 2}}},
             project_id=project, user_id=user, consumer_generation=None,
             consumer_type="INSTANCE")
    got = c.sdk_ok("get_allocation", consumer)
    assert got["allocations"][u]["resources"] == {"VCPU": 2}
    assert (got["consumer_generation"], got["consumer_type"]) == (1, "INSTANCE")
    stale = c.sdk("update_allocation", consumer, allocations={u: {"resources": {"VCPU": 3}}},
                  project_id=project, user_id=user, consumer_generation=0,
                  consumer_type="INSTANCE")
    assert stale["status"] == 409

    # a move, the way Nova does it: POST /allocations for both consumers at once
    c.sdk_ok("create_allocations", {
        consumer: {"allocations": {}, "project_id": project, "user_id": user,
                   "consumer_generation": 1, "consumer_type": "INSTANCE"},
        migration: {"allocations": {u: {"resources": {"VCPU": 2}}}, "project_id": project,
                    "user_id": user, "consumer_generation": None, "consumer_type": "MIGRATION"},
    })
    assert c.sdk_ok("get_allocation", consumer)["allocations"] == {}
    assert c.sdk_ok("get_allocation", migration)["consumer_type"] == "MIGRATION"
    on_provider = c.sdk_ok("resource_provider_allocations", u)
    assert [(a["consumer_id"], a["resources"]) for a in on_provider] == [
        (migration, {"VCPU": 2})]
    assert c.sdk_ok("fetch_resource_provider_usages", u)["usages"] == {"VCPU": 2, "MEMORY_MB": 0}
    usages = c.sdk_ok("usages", project)
    assert [(x["consumer_type"], x["consumer_count"], x["resources"]) for x in usages] == [
        ("MIGRATION", 1, {"VCPU": 2})]

    assert c.sdk_ok("delete_allocation", migration) is None
    assert c.sdk("delete_allocation", migration, ignore_missing=False)["status"] == 404
    c.sdk_ok("delete_resource_provider", u)


def test_server_never_answered_500(env):
    text = env["server"].log_text()
    assert "Traceback" not in text
    assert not re.search(r'" 5\d\d ', text), [line for line in text.splitlines()
                                              if re.search(r'" 5\d\d ', line)]
