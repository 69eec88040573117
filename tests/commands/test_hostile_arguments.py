"""Every management command given hostile arguments (numbers past any
machine integer or none at all, uuids of nothing, NUL and control
characters, what a command line turns bytes that are not UTF-8 into, 100
KB values) and load_json/import_upstream given files that are not dumps.

Either the command works (exit 0, or 1 for problems found) or it says
what is wrong in one line and exits 2; never a traceback.  A refused load
writes nothing.  Each test runs a family of cases and reports every one
that went wrong, so one run shows all of them."""
import io
import json
import sqlite3
import uuid

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction

from tests.commands import upstream_schema
from tests.commands.helpers import every_row, populate, snapshot

pytestmark = pytest.mark.django_db

NOWHERE = str(uuid.uuid4())
# What argv can hold: "\udcff" is how Python reads a byte that is not UTF-8.
HOSTILE = [
    "", " ", "\t", "-1", "0", "1e309", "-1e309", "nan", "inf", "9" * 5000, "1" + "0" * 30,
    "2147483648", "9223372036854775808", "\u00b2", "\u0663", "\uff11", "1.5", "0x10",
    "a\x00b", "\x00", "\x1b[31m", "\x7f", "\udcff", "\ud800", "\u202e", "x" * 100_000,
    NOWHERE, NOWHERE.upper(), "not-a-uuid", "%", "'", '"', "a,,b", ",", "!", "in:",
    "CUSTOM_" + "A" * 300, "VCPU:1", "VCPU:-1", "VCPU:99999999999999999999", "VCPU:1,VCPU:2",
    "req-" + NOWHERE, "head", "-", "--", "\n", "a\nb",
]


def _outcome(*args):
    """None when the command behaved; else what was wrong."""
    return _run(*args)[1]


def _run(*args):
    """(exit code, None when the command behaved or what was wrong)."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        # A savepoint per case: one command's database error must not
        # show up as the next command's.
        with transaction.atomic():
            call_command(*args, stdout=out, stderr=err)
    except SystemExit as exc:
        code = exc.code
        if code not in (0, 1, 2):
            return code, f"exit {code!r}"
    except CommandError as exc:
        code = getattr(exc, "returncode", 1)
        message = str(exc).strip()
        for arg in args:  # a newline the caller put in a value it is shown
            if isinstance(arg, str) and "\n" in arg:
                message = message.replace(arg.strip(), repr(arg))
        # load_json and import_upstream list the rows they refuse, one a line.
        if "\n" in message and not message.startswith("refused, nothing written"):
            return code, f"a message of several lines: {message[:300]!r}"
        if not message:
            return code, "an empty message"
        if code == 0:
            return code, "an error with exit 0"
    except Exception as exc:  # what a command line shows as a traceback
        return None, f"raised {type(exc).__name__}: {str(exc)[:200]}"
    if "Traceback (most recent call last)" in out.getvalue() + err.getvalue():
        return code, "a traceback in the output"
    return code, None


def _probe(cases):
    failures = []
    for args in cases:
        problem = _outcome(*args)
        if problem:
            shown = [a if len(a) < 60 else a[:20] + f"...({len(a)})" for a in map(str, args)]
            failures.append(f"{shown!r} -> {problem}")
    return failures


# command -> the options that take a value (each gets every hostile value),
# with what else the command needs to run.
OPTIONS = {
    "allocation_history": (["--consumer", "--provider", "--since"], ["--consumer", NOWHERE]),
    "audit_allocations": (["--limit", "--migration-age-hours"], []),
    "capacity_forecast": (["--aggregate", "--window-days", "--threshold-percent", "--show"], []),
    "drain_what_if": (["--provider", "--tree", "--aggregate", "--required",
                       "--target-aggregate", "--fullest", "--show"], ["--provider", "cn1"]),
    "explain_candidates": (["--show"], ["resources=VCPU:1"]),
    "export_json": (["--indent"], []),
    "headroom": (["--flavor", "--resources"], []),
    "heal_consumers": (["--project-id", "--user-id"], ["--project-id", "p", "--user-id", "u"]),
    "provider_tree": (["--root", "--format"], []),
    "prune_allocation_history": (["--days"], []),
    "scheduling_failures": (["--global-request-id", "--request-id", "--kind", "--reason",
                             "--hours", "--limit"], []),
    "login_unlock": (["--user", "--address"], []),
    "policy_show": (["--roles", "--project-id", "--user-id", "--system-scope",
                     "--target-project-id"], ["--roles", "admin"]),
}


def test_every_option_of_every_command_with_hostile_values():
    from django.conf import settings

    from tests import factories as f

    populate()
    # heal_consumers writes only when a consumer waits for healing.
    f.ConsumerFactory(project=f.ProjectFactory(
        external_id=settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID))
    failures = []
    for command, (options, needed) in OPTIONS.items():
        for option in options:
            # The option alone, and with what the command needs besides.
            base = [] if option in needed else needed
            if option == "--since":
                base = ["--consumer", NOWHERE]
            failures += _probe((command, *base, option, value) for value in HOSTILE)
            failures += _probe([(command, *base, f"{option}={HOSTILE[5]}", option, "1")])
    assert not failures, "\n".join(failures)


def test_positional_arguments_with_hostile_values():
    populate()
    failures = _probe(("explain_candidates", value) for value in HOSTILE)
    failures += _probe(("explain_candidates", f"resources={value}") for value in HOSTILE)
    failures += _probe(("explain_candidates", f"resources=VCPU:1&limit={value}")
                       for value in HOSTILE)
    failures += _probe(("flavors", "add", value, "VCPU:1") for value in HOSTILE)
    failures += _probe(("flavors", "add", "probe", value) for value in HOSTILE)
    failures += _probe(("flavors", "add", "--dry-run", "probe", value) for value in HOSTILE)
    failures += _probe(("flavors", "delete", value) for value in HOSTILE)
    failures += _probe(("flavors", "delete", "--dry-run", value) for value in HOSTILE)
    failures += _probe(("flavors", value) for value in HOSTILE)
    failures += _probe([("demo_cloud",), ("placement_status",), ("sync_catalog",),
                        ("take_usage_snapshot",), ("take_usage_snapshot", "--force"),
                        ("audit_allocations", "--fix"), ("audit_allocations", "--fix",
                                                         "--dry-run")])
    assert not failures, "\n".join(failures)


def _dump():
    populate()
    return snapshot()


def _variants(dump):
    """Dumps each wrong in one way: types, nesting, numbers, characters."""
    def edited(change):
        copy = json.loads(json.dumps(dump))
        change(copy)
        return json.dumps(copy)

    rp = 0
    yield "empty", ""
    yield "blank", "  \n"
    yield "null", "null"
    yield "a list", "[]"
    yield "a number", "1e309"
    yield "NaN", "NaN"
    yield "an empty object", "{}"
    yield "deep", "[" * 100_000 + "]" * 100_000
    yield "deep object", '{"a":' * 100_000 + "1" + "}" * 100_000
    yield "huge number", "9" * 5000
    yield "not UTF-8", b"\xff\xfe{}"
    yield "UTF-16", json.dumps(dump).encode("utf-16")
    yield "BOM", b"\xef\xbb\xbf" + json.dumps(dump).encode()
    yield "truncated", json.dumps(dump)[:-10]
    values = [None, True, 1.5, -1, 10 ** 30, "9" * 50, "", "x" * 100_000,
              "a\x00b", "\ud800", "\udcff", [], {}, [[[]]], float("inf"), float("nan"), 1e308,
              "\x1b[31m", NOWHERE, "not-a-uuid"]
    top = ["format", "version", "resource_classes", "traits", "aggregates", "projects", "users",
           "consumer_types", "resource_providers", "consumers"]
    provider_keys = ["uuid", "name", "generation", "parent", "root", "inventories", "traits",
                     "aggregates"]
    inventory_keys = ["total", "reserved", "min_unit", "max_unit", "step_size",
                      "allocation_ratio"]
    consumer_keys = ["uuid", "project", "user", "consumer_type", "generation", "allocations"]
    allocation_keys = ["resource_provider", "resource_class", "used"]
    for value in values:
        for key in top:
            yield f"{key}={value!r:.30}", edited(lambda d, k=key, v=value: d.__setitem__(k, v))
            if key not in ("format", "version", "resource_providers", "consumers"):
                yield f"{key}[]={value!r:.30}", edited(
                    lambda d, k=key, v=value: d.__setitem__(k, [*d[k], v]))
        yield f"resource_providers[]={value!r:.30}", edited(
            lambda d, v=value: d["resource_providers"].append(v))
        yield f"consumers[]={value!r:.30}", edited(lambda d, v=value: d["consumers"].append(v))
        for key in provider_keys:
            yield f"provider.{key}={value!r:.30}", edited(
                lambda d, k=key, v=value: d["resource_providers"][rp].__setitem__(k, v))
        for key in ("traits", "aggregates"):
            yield f"provider.{key}[]={value!r:.30}", edited(
                lambda d, k=key, v=value: d["resource_providers"][rp].setdefault(k, []).append(v))
        for key in inventory_keys:
            def inventory(d, k=key, v=value):
                for provider in d["resource_providers"]:
                    for record in provider["inventories"].values():
                        record[k] = v
            yield f"inventory.{key}={value!r:.30}", edited(inventory)
        if isinstance(value, str):
            def inventory_class(d, v=value):
                provider = next(p for p in d["resource_providers"] if p["inventories"])
                provider["inventories"][v] = next(iter(provider["inventories"].values()))
            yield f"inventory class {value!r:.30}", edited(inventory_class)
        for key in consumer_keys:
            yield f"consumer.{key}={value!r:.30}", edited(
                lambda d, k=key, v=value: d["consumers"][0].__setitem__(k, v))
        for key in allocation_keys:
            yield f"allocation.{key}={value!r:.30}", edited(
                lambda d, k=key, v=value: d["consumers"][0]["allocations"][0].__setitem__(k, v))
    yield "a key that is not a string", json.dumps(dump).replace('"total"', '"total", "1": 1', 1)
    yield "duplicate keys", json.dumps(dump).replace('"total": ', '"total": -1, "total": ', 1)
    yield "NaN ratio", json.dumps(dump).replace('"allocation_ratio": 4.0',
                                                '"allocation_ratio": NaN', 1)
    yield "Infinity ratio", json.dumps(dump).replace('"allocation_ratio": 4.0',
                                                     '"allocation_ratio": Infinity', 1)
    yield "1e309 ratio", json.dumps(dump).replace('"allocation_ratio": 4.0',
                                                  '"allocation_ratio": 1e309', 1)
    yield "huge total", json.dumps(dump).replace('"total": 16', '"total": ' + "9" * 5000, 1)


def test_load_json_refuses_what_is_not_a_dump_and_writes_nothing(tmp_path):
    dump = _dump()
    stored = every_row()
    failures = []
    for name, text in _variants(dump):
        path = tmp_path / "dump.json"
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
        for args in (("load_json", "--dry-run", str(path)), ("load_json", str(path))):
            code, problem = _run(*args)
            if problem:
                failures.append(f"{name} {args[1:-1]} -> {problem}")
            if every_row() != stored:
                if code != 0 or "--dry-run" in args:
                    failures.append(f"{name} {args[1:-1]} -> exit {code} and the database "
                                    "changed")
                stored = every_row()
    assert not failures, "\n".join(failures)


def test_load_json_given_paths_that_are_not_files(tmp_path):
    populate()
    (tmp_path / "dir").mkdir()
    failures = _probe(("load_json", path) for path in [
        str(tmp_path / "missing.json"), str(tmp_path / "dir"), str(tmp_path / "a\x00b"),
        "x" * 5000, "/proc/self/mem", "/dev/null", str(tmp_path / "dir" / "x" / "y"), "",
        "\udcff", "/proc/self/fd/999"])
    failures += _probe(("export_json", "-o", path) for path in [
        str(tmp_path / "dir"), str(tmp_path / "missing" / "x.json"), "/dev/full", "",
        str(tmp_path / "a\x00b"), str(tmp_path / ("x" * 5000)), "/proc/version",
        str(tmp_path / "\udcff")])
    assert not failures, "\n".join(failures)


def _upstream(tmp_path, name, change):
    path = tmp_path / f"{name}.sqlite"
    upstream_schema.build(str(path))
    conn = sqlite3.connect(str(path))
    conn.executescript(change)
    conn.commit()
    conn.close()
    return f"sqlite:///{path}"


UPSTREAM_CHANGES = {
    "text total": "UPDATE inventories SET total = 'many'",
    "huge total": "UPDATE inventories SET total = 99999999999999999999",
    "real total": "UPDATE inventories SET total = 1.5",
    "null total": "UPDATE inventories SET total = NULL",
    "blob name": "UPDATE resource_providers SET name = x'ff00fe' WHERE id = 1",
    "nul name": "UPDATE resource_providers SET name = 'a' || char(0) || 'b' WHERE id = 1",
    "long name": "UPDATE resource_providers SET name = printf('%.300c', 'x') WHERE id = 1",
    "bad uuid": "UPDATE resource_providers SET uuid = 'nope' WHERE id = 1",
    "null uuid": "UPDATE resource_providers SET uuid = NULL WHERE id = 1",
    "dangling class": "UPDATE inventories SET resource_class_id = 9999",
    "dangling trait": "UPDATE resource_provider_traits SET trait_id = 9999",
    "dangling aggregate": "UPDATE resource_provider_aggregates SET aggregate_id = 9999",
    "dangling provider": "UPDATE allocations SET resource_provider_id = 9999",
    "dangling project": "UPDATE consumers SET project_id = 9999",
    "dangling parent": "UPDATE resource_providers SET parent_provider_id = 9999 WHERE id = 2",
    "cycle": "UPDATE resource_providers SET parent_provider_id = 2 WHERE id = 1",
    "text ratio": "UPDATE inventories SET allocation_ratio = 'x'",
    "nan ratio": "UPDATE inventories SET allocation_ratio = 1e999 - 1e999",
    "inf ratio": "UPDATE inventories SET allocation_ratio = 1e999",
    "negative used": "UPDATE allocations SET used = -5",
    "text used": "UPDATE allocations SET used = 'x'",
    "null generation": "UPDATE resource_providers SET generation = NULL",
    "nul trait": "UPDATE traits SET name = 'CUSTOM_' || char(0) WHERE id = 2",
    "surrogate project": "UPDATE projects SET external_id = x'eda080'",
    "missing table": "DROP TABLE consumer_types",
    "missing column": "ALTER TABLE inventories DROP COLUMN step_size",
}


def test_import_upstream_given_hostile_databases(tmp_path):
    populate()
    stored = every_row()
    failures = []
    for name, change in UPSTREAM_CHANGES.items():
        url = _upstream(tmp_path, name.replace(" ", "_"), change)
        code, problem = _run("import_upstream", "--database-url", url)
        if problem:
            failures.append(f"{name} -> {problem}")
        if every_row() != stored:
            if code != 0:
                failures.append(f"{name} -> exit {code} but the database changed")
            stored = every_row()
    failures += _probe(("import_upstream", "--database-url", url) for url in [
        *HOSTILE, f"sqlite:///{tmp_path}", f"sqlite:///{tmp_path}/missing/x.db",
        "postgres://nobody@127.0.0.1:1/x", "mysql://nobody@127.0.0.1:1/x", "http://x",
        "sqlite://", "sqlite:///:memory:", "postgres://[::1", "mysql://a:b@/%zz"])
    assert not failures, "\n".join(failures)
