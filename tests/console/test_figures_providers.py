"""The providers list, full hosts and provider pages on the awkward cloud
(tests/console/figures_cloud.py), every figure counted again from the
Placement API's answers (figures_reference) and, for the key ones, by hand."""
import re

import pytest

from console import views
from tests.console import figures_cloud as fc
from tests.console.figures_html import agrees, by_first, csv_rows, number, table, text_of
from tests.console.figures_reference import Reference

pytestmark = pytest.mark.django_db


@pytest.fixture
def cloud(api):
    return fc.build(api)


@pytest.fixture
def ref(api, cloud):
    return Reference(api)


def _listed(staff, **params):
    """Every row of the providers list, page after page (5 a page)."""
    rows, page = [], 1
    while True:
        html = staff.get("/console/providers/", {**params, "page": page}).content.decode()
        rows += table(html, "providers")
        if f"page {page} of" not in html or f"page {page} of {page}<" in html:
            return rows, html
        page += 1


def _fullness_key(ref, rc, descending):
    def key(u):
        f = ref.fullness(u, rc)
        if f is None:
            return (1, 0, ref.rp[u]["name"])
        return (0, -f if descending else f, ref.rp[u]["name"])
    return key


@pytest.mark.parametrize("rc", ["", "VCPU", "MEMORY_MB", "DISK_GB"])
@pytest.mark.parametrize("sort", ["full", "empty"])
def test_fullness_and_its_order_hold_across_pages(staff, ref, monkeypatch, rc, sort):
    monkeypatch.setattr(views, "PAGE_SIZE", 5)
    rows, _ = _listed(staff, sort=sort, **({"class": rc} if rc else {}))
    right = sorted(ref.rp, key=_fullness_key(ref, rc or None, sort == "full"))
    assert [r[0].text.replace(" disabled", "") for r in rows] == [
        ref.rp[u]["name"] for u in right]
    for row, u in zip(rows, right):
        f = ref.fullness(u, rc or None)
        if f is None:
            assert row[1].text == "—"
        else:
            assert row[1].pcts == [f] and number(row[1].text) == round(100 * f, 1)
        assert ("disabled" in row[0].text) == ref.disabled(u)
    if not rc and sort == "full":
        assert [r[0].text for r in rows[:3]] == ["h3", "h3-numa0", "h1-numa0"]
        assert rows[-1][0].text == "bare"


def test_capacity_column_and_csv(staff, ref):
    rows = by_first(table(staff.get("/console/providers/").content.decode(), "providers"))
    for name, row in rows.items():
        u = ref.u(name.replace(" disabled", ""))
        names = re.findall(r"\b([A-Z][A-Z0-9_]{2,})\b", row[2].text)
        shown = sorted(zip(names, row[2].raws[::2], row[2].raws[1::2]))
        assert shown == [(rc, ref.used(u, rc), ref.capacity(u, rc)) for rc in ref.classes(u)], name
    csv = csv_rows(staff.get("/console/providers/", {"format": "csv"}))
    got = {(r["name"], r["resource_class"]): (r["used"], r["capacity"]) for r in csv}
    right = {(p["name"], rc): (str(ref.used(u, rc)), str(ref.capacity(u, rc)))
             for u, p in ref.rp.items() for rc in ref.classes(u)}
    right[("bare", "")] = ("", "")
    assert got == right


@pytest.mark.parametrize("threshold, rc, names", [
    ("90", "", ["h3"]),
    ("70", "", ["h3", "h3-numa0"]),
    ("25", "", ["h3", "h3-numa0", "h1-numa0"]),
    ("25", "MEMORY_MB", ["h3"]),
    ("100", "VCPU", ["h3"]),
])
def test_full_threshold_on_the_list_and_full_hosts(staff, ref, threshold, rc, names):
    def over(u):
        classes = [rc] if rc else list(ref.rp[u]["inventories"])
        return [c for c in classes if c in ref.rp[u]["inventories"]
                and ref.fraction(u, c) >= float(threshold) / 100]

    right = sorted((u for u in ref.rp if over(u)), key=_fullness_key(ref, rc or None, True))
    assert [ref.rp[u]["name"] for u in right] == names
    extra = {"class": rc} if rc else {}
    html = staff.get("/console/providers/", {"full": threshold, "sort": "full", **extra}
                     ).content.decode()
    assert [r[0].text for r in table(html, "providers")] == names
    assert text_of(html, "provider-count") == f"{len(names)} provider{'s' * (len(names) != 1)}"
    html = staff.get("/console/full/", {"above": threshold, **extra}).content.decode()
    rows = table(html, "full-hosts")
    assert [r[0].text for r in rows] == names
    assert text_of(html, "full-count").startswith(f"{len(names)} provider")
    for row, u in zip(rows, right):
        root = ref.rp[u]["root"]
        assert row[1].text == ("root" if root == u else ref.rp[root]["name"])
        assert row[2].pcts == [ref.fullness(u, rc or None)]
        shown = [(c, *row[3].raws[2 * i:2 * i + 2]) for i, c in enumerate(over(u))]
        assert shown == [(c, ref.used(u, c), ref.capacity(u, c)) for c in over(u)]
    csv = csv_rows(staff.get("/console/full/", {"above": threshold, "format": "csv", **extra}))
    assert [(r["name"], r["resource_class"], int(r["used"]), int(r["capacity"]),
             float(r["percent"])) for r in csv] == [
        (ref.rp[u]["name"], c, ref.used(u, c), ref.capacity(u, c),
         round(100 * ref.fraction(u, c), 1)) for u in right for c in over(u)]


def test_every_provider_page(staff, ref):
    for u, p in ref.rp.items():
        html = staff.get(f"/console/providers/{u}/").content.decode()
        rows = by_first(table(html, "capacity")) if p["inventories"] or p["allocations"] else {}
        assert sorted(rows) == ref.classes(u), p["name"]
        for rc, row in rows.items():
            inv = p["inventories"].get(rc)
            if inv:
                assert [row[1].raws[0], row[2].raws[0], number(row[3].text), *row[4].raws] == [
                    inv["total"], inv["reserved"], inv["allocation_ratio"], inv["min_unit"],
                    inv["max_unit"], inv["step_size"]], (p["name"], rc)
            else:  # allocations of a class without inventory: no ratio or units to show
                assert [row[1].raws[0], row[2].raws[0], row[3].text, row[4].text] == [
                    0, 0, "—", "—"], (p["name"], rc)
            assert [row[5].raws[0], row[6].raws[0], row[7].raws[0]] == [
                ref.capacity(u, rc), ref.used(u, rc), ref.free(u, rc)], (p["name"], rc)
            assert agrees(row[7].text, rc, ref.free(u, rc))
            assert number(row[8].text) == round(100 * ref.fraction(u, rc), 1)
        # Consumers holding allocations here and under here (a host's NUMA
        # cells and NICs), each once with what it holds there, by provider
        # name and class.
        below = subtree(ref, u)
        shown = {r[0].text.split()[-1] if "MIGRATION" not in r[0].text
                 else r[0].text.split()[1]: r[3].raws for r in table(html, "consumers")
                 if r[0].text != "No allocations."}
        right = {}
        for t in sorted(below, key=lambda t: ref.rp[t]["name"]):
            for c, a in ref.rp[t]["allocations"].items():
                right.setdefault(c[:8], []).extend(n for _, n in sorted(a["resources"].items()))
        assert shown == {c: right[c] for c in sorted(right)}, p["name"]
        csv = csv_rows(staff.get(f"/console/providers/{u}/",
                                 {"table": "consumers", "format": "csv"}))
        assert sorted((r["consumer_uuid"], r["provider_uuid"], r["resource_class"],
                       int(r["used"])) for r in csv) == \
            sorted((c, t, rc, n) for t in below for c, a in ref.rp[t]["allocations"].items()
                   for rc, n in a["resources"].items())
        # A root with children: the tree's sums, free counted per inventory.
        tree = ref.tree(u)
        if p["parent"] is None and len(tree) > 1:
            totals = by_first(table(html, "tree-totals"))
            classes = sorted({rc for t in tree for rc in ref.classes(t)})
            assert sorted(totals) == classes
            for rc in classes:
                assert [c.raws[0] for c in totals[rc][1:4]] == [
                    sum(ref.capacity(t, rc) for t in tree), sum(ref.used(t, rc) for t in tree),
                    sum(ref.free(t, rc) for t in tree)], (p["name"], rc)
        else:
            assert 'id="tree-totals"' not in html


def test_h3_by_hand(staff, cloud):
    html = staff.get(f"/console/providers/{cloud.rp['h3']}/").content.decode()
    vcpu = by_first(table(html, "capacity"))["VCPU"]
    # 4 allocated of 3: nothing free, 133.3 % used.
    assert [c.text for c in vcpu[5:9]] == ["3", "4", "0", "133.3 %"]
    totals = by_first(table(html, "tree-totals"))
    # h3 over by one, h3-numa0 with 2 of 8 free: the tree has 2 free, not 1.
    assert [c.text for c in totals["VCPU"][1:4]] == ["11", "10", "2"]
    assert [c.text for c in totals["PCPU"][1:4]] == ["0", "1", "0"]


def test_generations_sharing_and_trees_served(staff, api, ref):
    rows = by_first(table(staff.get("/console/providers/").content.decode(), "providers"))
    for name, row in rows.items():
        u = ref.u(name.replace(" disabled", ""))
        generation = api.get(f"/resource_providers/{u}", mv=fc.MV).json()["generation"]
        assert int(row[5].text) == generation, name
    for u, p in ref.rp.items():
        html = staff.get(f"/console/providers/{u}/").content.decode()
        tree_aggs = set().union(*(ref.rp[t]["aggregates"] for t in ref.tree(p["root"])))
        sharing = sorted(ref.rp[s]["name"] for s in ref.rp
                         if s != u and ref.sharing(s) and ref.rp[s]["aggregates"] & tree_aggs)
        shown = re.findall(r"<li><a [^>]*>([^<]+)</a></li>",
                           html.split('id="sharing"')[1].split("</ul>")[0])
        assert shown == sharing, p["name"]
        if ref.sharing(u):
            served = sorted({ref.rp[ref.rp[m]["root"]]["name"] for m in ref.rp
                             if ref.rp[m]["aggregates"] & p["aggregates"]} - {p["name"]})
            shown = re.findall(r"<li><a [^>]*>([^<]+)</a></li>",
                               html.split('id="served"')[1].split("</ul>")[0])
            assert shown == served, p["name"]
    # By hand: pool-b serves the trees of AGG_B and AGG_C's members.
    assert sorted({ref.rp[ref.rp[m]["root"]]["name"] for m in ref.rp
                   if ref.rp[m]["aggregates"] & {fc.AGG_B, fc.AGG_C}} - {"pool-b"}) == [
        "h1", "h2", "h3", "idle"]


def subtree(ref, u):
    """The provider and every provider under it (by parent links)."""
    out, grew = {u}, True
    while grew:
        more = {t for t, p in ref.rp.items() if p["parent"] in out} - out
        out |= more
        grew = bool(more)
    return out
