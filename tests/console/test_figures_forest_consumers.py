"""The forest, the consumers list and the usage by project on the awkward
cloud (tests/console/figures_cloud.py), counted again from the Placement
API's answers."""
import re

import pytest

from tests.console import figures_cloud as fc
from tests.console.figures_html import by_first, csv_rows, table, tables
from tests.console.figures_reference import Reference

pytestmark = pytest.mark.django_db


@pytest.fixture
def cloud(api):
    return fc.build(api)


@pytest.fixture
def ref(api, cloud):
    return Reference(api)


def _summaries(html):
    """Per tree: (root name, providers, consumers, {class: (used, capacity)})."""
    out = {}
    for summary in re.findall(r"<summary>(.*?)</summary>", html, re.S):
        root = re.search(r"<b>([^<]+)</b>", summary).group(1)
        counts = re.search(r"(\d+) provider\(s\), (\d+) consumer\(s\)", summary)
        tags = re.findall(r'<span class="tag">([A-Z0-9_]+) (.*?)</span></span>', summary)
        classes = {}
        for rc, amounts in tags:
            used, cap = re.findall(r'data-sort="(-?\d+)"', amounts)
            classes[rc] = (int(used), int(cap))
        out[root] = (int(counts.group(1)), int(counts.group(2)), classes)
    return out


def test_forest_per_node_and_per_tree(staff, ref):
    html = staff.get("/console/forest/").content.decode()
    roots = [u for u, p in ref.rp.items() if p["parent"] is None]
    assert f'id="forest-count">{len(roots)} tree(s).' in html
    summaries = _summaries(html)
    assert set(summaries) == {ref.rp[r]["name"] for r in roots}
    for root in roots:
        tree = ref.tree(root)
        classes = sorted({rc for u in tree for rc in ref.classes(u)})
        consumers = set().union(*(ref.consumers(u) for u in tree))
        assert summaries[ref.rp[root]["name"]] == (len(tree), len(consumers), {
            rc: (sum(ref.used(u, rc) for u in tree), sum(ref.capacity(u, rc) for u in tree))
            for rc in classes}), ref.rp[root]["name"]
    by_hand = {name: s[1] for name, s in summaries.items()}
    assert by_hand == {"h1": 2, "h2": 2, "h3": 3, "pool-a": 1, "pool-b": 2, "idle": 0, "bare": 0}
    nodes = {}
    for rows in tables(html).values():
        if rows and rows[0][0].text == "Provider":
            for row in rows[1:]:
                nodes[row[0].text.lstrip("└ ").strip()] = row
    assert set(nodes) == {p["name"] for p in ref.rp.values()}
    for name, row in nodes.items():
        u = ref.u(name)
        names = re.findall(r"\b([A-Z][A-Z0-9_]{2,})\b", row[1].text)
        assert sorted(zip(names, row[1].raws[::2], row[1].raws[1::2])) == [
            (rc, ref.used(u, rc), ref.capacity(u, rc)) for rc in ref.classes(u)], name
        assert int(row[2].text) == len(ref.consumers(u)), name
        # Traits by name, the first three shown and the rest behind "+N more".
        traits = sorted(ref.rp[u]["traits"])
        assert all(t in row[3].text for t in traits), name
        assert (f"+{len(traits) - 3} more" in row[3].text) == (len(traits) > 3), name
        assert ("none" in row[3].text) == (not traits), name
        assert ("disabled" in row[3].text) == ref.disabled(u), name
    csv = csv_rows(staff.get("/console/forest/", {"format": "csv"}))
    got = {(r["name"], r["resource_class"]): (r["used"], r["capacity"], r["consumers"])
           for r in csv}
    right = {(p["name"], rc): (str(ref.used(u, rc)), str(ref.capacity(u, rc)),
                               str(len(ref.consumers(u))))
             for u, p in ref.rp.items() for rc in ref.classes(u)}
    right[("bare", "")] = ("", "", "0")
    assert got == right


def _allocations(api, consumer):
    return api.get(f"/allocations/{consumer}", mv=fc.MV).json()["allocations"]


def test_consumers_list_hosts_and_resources(staff, api, ref, cloud):
    html = staff.get("/console/consumers/").content.decode()
    rows = table(html, "consumer-list")
    assert len(rows) == len(cloud.consumer)
    shown = {}
    for row in rows:
        short = re.search(r"\b([0-9a-f]{8})\b", row[0].text).group(1)
        shown[short] = row
    for name, c in cloud.consumer.items():
        row = shown[c[:8]]
        allocations = _allocations(api, c)
        # Hosts: the trees it holds something in; a sharing pool it draws
        # on is shown apart, as a pool, not as a second host.
        hosts = sorted({ref.rp[ref.rp[u]["root"]]["name"] for u in allocations
                        if not ref.sharing(u)})
        pools = sorted({ref.rp[u]["name"] for u in allocations if ref.sharing(u)})
        text = row[1].text
        listed = [h.strip() for h in text.split(";")[0].split(",")] if hosts else []
        assert listed == hosts, (name, text)
        shared = text.split("; ")[-1] if pools else ""
        assert [p.strip().removesuffix(" pool") for p in shared.split(",") if p] == pools, text
        if not hosts and not pools:
            assert text == "none"
        summed = {}
        for a in allocations.values():
            for rc, n in a["resources"].items():
                summed[rc] = summed.get(rc, 0) + n
        assert row[2].raws == [n for _, n in sorted(summed.items())], name
    by_hand = {name: shown[c[:8]][1].text for name, c in cloud.consumer.items()}
    assert by_hand["c_mig"] == "h1, h3"  # a move in flight: two hosts
    assert by_hand["c_span"] == "h1; pool-a pool"  # one host, and the pool it draws on
    assert by_hand["c_pool"] == "pool-b pool"
    assert by_hand["c_empty"] == "none"
    csv = csv_rows(staff.get("/console/consumers/", {"format": "csv"}))
    assert {r["uuid"]: int(r["allocations"]) for r in csv} == {
        c: sum(len(a["resources"]) for a in _allocations(api, c).values())
        for c in cloud.consumer.values()}


def test_usage_by_project_is_what_get_usages_says(staff, api, cloud):
    html = staff.get("/console/consumers/").content.decode()
    rows = by_first(table(html, "projects"))
    csv = csv_rows(staff.get("/console/consumers/", {"table": "projects", "format": "csv"}))
    for project in ("proj-a", "proj-b", "proj-c"):
        usages = api.get(f"/usages?project_id={project}", mv=fc.MV).json()["usages"]
        consumers = sum(u.pop("consumer_count") for u in usages.values())
        summed = {}
        for by_type in usages.values():
            for rc, n in by_type.items():
                summed[rc] = summed.get(rc, 0) + n
        row = rows[project]
        assert int(row[1].text) == consumers, project
        assert row[2].raws == [n for _, n in sorted(summed.items())], project
        assert {r["resource_class"]: int(r["used"]) for r in csv if r["project"] == project} \
            == summed
        assert {int(r["consumers"]) for r in csv if r["project"] == project} == {consumers}
    # By hand: proj-c has an empty consumer beside c_pool; it holds nothing.
    assert rows["proj-c"][1].text == "1"
    assert [r[0].text for r in rows.values()] == ["proj-a", "proj-b", "proj-c"]


def test_every_consumer_page(staff, api, cloud):
    for name, c in cloud.consumer.items():
        html = staff.get(f"/console/consumers/{c}/").content.decode()
        allocations = _allocations(api, c)
        rows = [r for r in table(html, "allocations")
                if r[0].text != "This consumer holds no allocations."]
        assert sorted((r[0].text, r[1].text, r[2].raws[0]) for r in rows) == sorted(
            (api.get(f"/resource_providers/{u}", mv=fc.MV).json()["name"], rc, n)
            for u, a in allocations.items() for rc, n in a["resources"].items()), name
        csv = csv_rows(staff.get(f"/console/consumers/{c}/",
                                 {"table": "allocations", "format": "csv"}))
        assert sorted((r["provider_uuid"], r["resource_class"], int(r["used"])) for r in csv) \
            == sorted((u, rc, n) for u, a in allocations.items()
                      for rc, n in a["resources"].items())


def test_consumer_generations(staff, api, cloud):
    rows = table(staff.get("/console/consumers/").content.decode(), "consumer-list")
    shown = {re.search(r"\b([0-9a-f]{8})\b", r[0].text).group(1): int(r[6].text) for r in rows}
    for name, c in cloud.consumer.items():
        answer = api.get(f"/allocations/{c}", mv=fc.MV).json()
        # An empty consumer has no allocations for the API to answer with.
        expected = answer.get("consumer_generation") if answer["allocations"] else 1
        assert shown[c[:8]] == expected, name
