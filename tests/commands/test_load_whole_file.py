"""load_json and import_upstream judge the whole file, together with what
the database already holds, by the rules the API applies: capacity (alone
or on top of existing usage), inventory for every allocated class, trees
without parent cycles whose roots are their ancestors, one provider per
uuid and name, one consumer per uuid. A file that breaks any of them is
refused whole, naming the row and the reason: exit 2, nothing written
(issue 28, items 12 and 13). --allow-over-capacity relaxes only the
capacity rule."""
import copy
import json
import sqlite3
import uuid

import pytest

from tests import factories as f
from tests.commands.helpers import every_row, populate, run, snapshot

pytestmark = pytest.mark.django_db


def _load(tmp_path, dump, *flags):
    path = tmp_path / "dump.json"
    path.write_text(json.dumps(dump) if not isinstance(dump, str) else dump)
    return run("load_json", str(path), *flags)


def _provider(dump, name):
    return next(rp for rp in dump["resource_providers"] if rp["name"] == name)


def _refused(tmp_path, dump, *reasons, flags=()):
    stored = every_row()
    code, out = _load(tmp_path, dump, *flags)
    assert code == 2, out
    assert "refused, nothing written" in out
    for reason in reasons:
        assert reason in out, out
    assert "Traceback" not in out
    assert every_row() == stored
    return out


def _consumer(rp_uuid, rc, used, **extra):
    return {"uuid": str(uuid.uuid4()), "project": "p", "user": "u", "consumer_type": None,
            "generation": 1, "allocations": [{"resource_provider": rp_uuid,
                                              "resource_class": rc, "used": used}], **extra}


# -- capacity and inventory -----------------------------------------------------


def test_allocations_over_capacity_in_the_file_alone(tmp_path):
    populate()
    dump = snapshot()
    child = _provider(dump, "cn1-numa0")  # VCPU: total 16, ratio 4: capacity 64
    dump["consumers"].append(_consumer(child["uuid"], "VCPU", 61))  # 4 + 61 > 64
    _refused(tmp_path, dump, f"provider {child['uuid']!r} VCPU",
             "would hold 65 against a capacity of 64")


def test_allocations_over_capacity_on_top_of_what_is_stored(tmp_path):
    root, child, _ = populate()
    # Stored, and not in the file: another consumer holding 40 VCPU.
    f.AllocationFactory(resource_provider=child, used=40)
    dump = snapshot()
    dump["consumers"] = [c for c in dump["consumers"] if c["allocations"][0]["used"] != 40]
    dump["consumers"].append(_consumer(child.uuid, "VCPU", 21))  # 4 + 40 + 21 > 64
    _refused(tmp_path, dump, "would hold 65 against a capacity of 64")


def test_an_allocation_of_a_class_without_inventory(tmp_path):
    root, _, _ = populate()
    dump = snapshot()
    dump["consumers"].append(_consumer(root.uuid, "DISK_GB", 1))
    out = _refused(tmp_path, dump, f"consumers[1] ({dump['consumers'][1]['uuid']!r})",
                   "has no DISK_GB inventory")
    # Not relaxed by the flag.
    _refused(tmp_path, dump, "has no DISK_GB inventory", flags=("--allow-over-capacity",))
    assert out


def test_an_inventory_shrunk_below_stored_allocations(tmp_path):
    root, child, _ = populate()
    f.AllocationFactory(resource_provider=child, used=40)  # not in the file
    dump = snapshot()
    dump["consumers"] = [c for c in dump["consumers"] if c["allocations"][0]["used"] != 40]
    _provider(dump, "cn1-numa0")["inventories"]["VCPU"]["total"] = 10  # capacity 40 < 44
    _refused(tmp_path, dump, "would hold 44 against a capacity of 40")


def test_an_inventory_dropped_under_stored_allocations(tmp_path):
    root, child, consumer = populate()
    dump = snapshot()
    dump["consumers"] = []  # the stored consumer keeps its allocations
    del _provider(dump, "cn1")["inventories"]["CUSTOM_GOLD"]
    _refused(tmp_path, dump, f"consumer {consumer.uuid} (in the database)",
             "has no CUSTOM_GOLD inventory")


def test_the_flag_relaxes_the_capacity_rule_only(tmp_path):
    populate()
    dump = snapshot()
    child = _provider(dump, "cn1-numa0")
    dump["consumers"].append(_consumer(child["uuid"], "VCPU", 100))
    code, out = _load(tmp_path, dump, "--allow-over-capacity")
    assert code == 0, out
    assert "over capacity, loaded as asked (--allow-over-capacity)" in out
    code, out = run("audit_allocations")
    assert code == 1 and "VCPU" in out


def test_within_capacity_with_stored_usage_loads(tmp_path):
    root, child, _ = populate()
    f.AllocationFactory(resource_provider=child, used=40)
    dump = snapshot()
    dump["consumers"] = [c for c in dump["consumers"] if c["allocations"][0]["used"] != 40]
    dump["consumers"].append(_consumer(child.uuid, "VCPU", 20))  # 4 + 40 + 20 = 64
    code, out = _load(tmp_path, dump)
    assert code == 0, out


# -- trees ------------------------------------------------------------------------------


def _tree_dump(links):
    """Providers a, b, c (and more) with the given (parent, root) by name."""
    ids = {name: str(uuid.uuid4()) for name in links}
    return ids, {"format": "placement-dump", "version": 1, "consumers": [],
                 "resource_providers": [
                     {"uuid": ids[name], "name": name,
                      "parent": ids.get(parent), "root": ids.get(root),
                      "inventories": {}}
                     for name, (parent, root) in links.items()]}


@pytest.mark.parametrize("links,shape", [
    ({"a": ("a", None)}, "aa"),
    ({"a": ("b", None), "b": ("a", None)}, "aba"),
    ({"a": ("b", None), "b": ("c", None), "c": ("a", None)}, "abca"),
    ({"a": (None, None), "b": ("c", None), "c": ("b", None), "d": ("b", None)}, "bcb"),
])
def test_parent_cycles_are_refused(tmp_path, links, shape):
    ids, dump = _tree_dump(links)
    _refused(tmp_path, dump, "parent cycle " + " -> ".join(ids[name] for name in shape))


def test_a_root_that_is_not_an_ancestor_is_refused(tmp_path):
    ids, dump = _tree_dump({"a": (None, None), "b": ("a", "c"), "c": (None, None)})
    _refused(tmp_path, dump, f"root {ids['c']!r} is not the top of its tree ({ids['a']!r})")


def test_a_cycle_through_a_stored_provider_is_refused(tmp_path):
    # Stored: x under y. The file puts y under x.
    y = f.ResourceProviderFactory(name="y")
    x = f.ResourceProviderFactory(name="x", parent=y)
    dump = {"format": "placement-dump", "version": 1, "consumers": [],
            "resource_providers": [{"uuid": y.uuid, "name": "y", "parent": x.uuid,
                                    "root": x.uuid, "inventories": {}}]}
    _refused(tmp_path, dump, "parent cycle")


def test_moving_a_stored_tree_leaves_no_stale_root_behind(tmp_path):
    # Stored: m with child k. The file moves m under n, but says nothing of k,
    # whose stored root would still be m.
    m = f.ResourceProviderFactory(name="m")
    k = f.ResourceProviderFactory(name="k", parent=m)
    n = f.ResourceProviderFactory(name="n")
    dump = {"format": "placement-dump", "version": 1, "consumers": [],
            "resource_providers": [{"uuid": m.uuid, "name": "m", "parent": n.uuid,
                                    "root": n.uuid, "inventories": {}}]}
    _refused(tmp_path, dump, f"provider {k.uuid!r} (in the database)")


def test_a_good_nested_file_with_roots_left_out_loads(tmp_path):
    ids, dump = _tree_dump({"a": (None, None), "b": ("a", None), "c": ("b", "a")})
    code, out = _load(tmp_path, dump)
    assert code == 0, out


# -- item 13: duplicates and shapes: one line, exit 2 -------------------------------


def _one_line_refusal(tmp_path, dump, reason):
    code, out = _load(tmp_path, dump)
    assert code == 2, out
    assert "Traceback" not in out
    assert reason in out, out


def test_a_duplicate_provider_uuid(tmp_path):
    ids, dump = _tree_dump({"a": (None, None), "b": (None, None)})
    dump["resource_providers"][1]["uuid"] = ids["a"]
    _one_line_refusal(tmp_path, dump, f"resource_providers[1] ({ids['a']!r}): uuid also "
                                      "given by resource_providers[0]")


def test_a_duplicate_provider_name(tmp_path):
    ids, dump = _tree_dump({"a": (None, None), "b": (None, None)})
    dump["resource_providers"][1]["name"] = "a"
    _one_line_refusal(tmp_path, dump, "name 'a' also given by resource_providers[0]")


def test_a_duplicate_consumer_uuid(tmp_path):
    populate()
    dump = snapshot()
    dump["consumers"].append(copy.deepcopy(dump["consumers"][0]))
    _one_line_refusal(tmp_path, dump, "consumers[1]")
    _one_line_refusal(tmp_path, dump, "uuid also given by consumers[0]")


@pytest.mark.parametrize("field,value", [("inventories", [1, 2]), ("traits", "CUSTOM_X"),
                                         ("aggregates", {"a": 1})])
def test_provider_fields_of_the_wrong_shape(tmp_path, field, value):
    ids, dump = _tree_dump({"a": (None, None)})
    dump["resource_providers"][0][field] = value
    _one_line_refusal(tmp_path, dump, f"{field} must be")


@pytest.mark.parametrize("key", ["resource_providers", "consumers"])
def test_top_level_lists_of_the_wrong_shape(tmp_path, key):
    dump = {"format": "placement-dump", "version": 1, key: {"x": 1}}
    _one_line_refusal(tmp_path, dump, f"{key} must be a list")


def test_a_deeply_nested_file(tmp_path):
    code, out = _load(tmp_path, "[" * 100000 + "]" * 100000)
    assert code == 2
    assert "nested too deeply" in out
    assert len(out.strip().splitlines()) == 1


# -- import_upstream takes the same checks ---------------------------------------------


def test_import_upstream_refuses_a_cycle_and_over_capacity(tmp_path):
    from providers.models import ResourceProvider
    from tests.commands import upstream_schema as up

    path = tmp_path / "upstream.sqlite"
    up.build(str(path))
    db = sqlite3.connect(path)
    db.execute("UPDATE resource_providers SET parent_provider_id = "
               "(SELECT id FROM resource_providers WHERE uuid = ?) WHERE uuid = ?",
               (up.CHILD, up.ROOT))
    db.execute("UPDATE allocations SET used = 100000")
    db.commit()
    db.close()
    code, out = run("import_upstream", "--database-url", f"sqlite:///{path}")
    assert code == 2
    assert "refused, nothing written" in out
    assert "parent cycle" in out and "against a capacity of" in out
    assert not ResourceProvider.objects.exists()


# -- item 7: what is already stored is reported --------------------------------------


@pytest.mark.parametrize("kind", ["self", "two", "three", "root"])
def test_status_and_audit_report_cycles_and_roots_that_are_not_ancestors(kind):
    from providers.models import ResourceProvider

    a = f.ResourceProviderFactory(name="a")
    b = f.ResourceProviderFactory(name="b", parent=a)
    c = f.ResourceProviderFactory(name="c", parent=b)
    other = f.ResourceProviderFactory(name="other")
    rows = ResourceProvider.objects
    if kind == "self":
        rows.filter(pk=a.pk).update(parent=a)
        expected = f"parent cycle {a.uuid} -> {a.uuid}"
    elif kind == "two":
        rows.filter(pk=a.pk).update(parent=b)
        expected = "parent cycle"
    elif kind == "three":
        rows.filter(pk=a.pk).update(parent=c)
        expected = "parent cycle"
    else:
        rows.filter(pk=c.pk).update(root=other)
        expected = f"provider {c.uuid!r}: root {other.uuid!r} is not the top of its tree"
    code, out = run("placement_status")
    assert code == 1
    assert "[FAIL] Stored rows are valid" in out and expected in out
    code, out = run("audit_allocations")
    assert code == 1
    assert "stored rows the API would refuse: 1" in out and expected in out


def test_status_is_clean_on_sound_nested_trees():
    a = f.ResourceProviderFactory(name="a")
    b = f.ResourceProviderFactory(name="b", parent=a)
    f.ResourceProviderFactory(name="c", parent=b)
    code, out = run("placement_status")
    assert "[PASS] Stored rows are valid" in out or "Stored rows are valid" in out
    assert "parent cycle" not in out and "not the top" not in out
