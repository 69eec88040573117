"""A host's page shows what runs on its whole tree: each consumer once with
what it holds on the root, its NUMA cells and its NIC (the figures of GET
/allocations/{consumer}, limited to the tree), and the history of every
provider of the tree (GET /history/providers/{uuid} of each)."""
import csv
import io
import re

import pytest

from tests.console import hosts_cloud
from tests.console.api_cloud import MV
from tests.support.api import PlacementClient

pytestmark = pytest.mark.django_db

ROW = re.compile(r'<tr[^>]*><td><a class="consumer" href="/console/consumers/([0-9a-f-]{36})/"'
                 r'.*?</tr>', re.S)
HELD = re.compile(r'class="held" data-provider="([0-9a-f-]{36})" data-class="(\w+)" '
                  r'data-used="(\d+)"')


def tree_of(api, root):
    return {p["uuid"] for p in api.get(f"/resource_providers?in_tree={root}", mv=MV).json()[
        "resource_providers"]}


def held_in(api, consumer, providers):
    """{(provider, class): amount} of the consumer's allocations on ``providers``."""
    body = api.get(f"/allocations/{consumer}", mv=MV).json()["allocations"]
    return {(rp, rc): n for rp, a in body.items() if rp in providers
            for rc, n in a["resources"].items()}


def consumers_table(html):
    table = html.split('id="consumers"')[1].split("</table>")[0]
    return {m.group(0): m.group(1) for m in ROW.finditer(table)}


def test_a_hosts_consumers_are_its_trees(staff):
    api = PlacementClient()
    rp, consumers = hosts_cloud.build(api)
    for host in ("big", "small", "full"):
        tree = tree_of(api, rp[host])
        expected = {}
        for c in consumers.values():
            if held := held_in(api, c, tree):
                expected[c] = held
        assert expected, host
        html = staff.get(f"/console/providers/{rp[host]}/").content.decode()
        rows = consumers_table(html)
        # Each consumer once, holding on the page what the API says it holds in the tree.
        assert sorted(rows.values()) == sorted(expected), host
        for row, consumer in rows.items():
            shown = {(p, rc): int(n) for p, rc, n in HELD.findall(row)}
            assert shown == expected[consumer], (host, consumer)
    # big: a holds MEMORY_MB on the root, VCPU on numa0 and a VF on the NIC.
    html = staff.get(f"/console/providers/{rp['big']}/").content.decode()
    row = next(r for r, c in consumers_table(html).items() if c == consumers["a"])
    assert {(p, rc) for p, rc, _ in HELD.findall(row)} == {
        (rp["big"], "MEMORY_MB"), (rp["big-numa0"], "VCPU"), (rp["big-nic"], "SRIOV_NET_VF")}
    assert "Consumers holding allocations in this tree" in html
    # A child's page still shows only what is on it (and under it).
    html = staff.get(f"/console/providers/{rp['big-numa1']}/").content.decode()
    rows = consumers_table(html)
    assert list(rows.values()) == [consumers["b"]]
    assert {(p, rc, int(n)) for p, rc, n in HELD.findall(next(iter(rows)))} == {
        (rp["big-numa1"], "PCPU", 2)}


def test_a_hosts_history_and_downloads_cover_its_tree(staff):
    api = PlacementClient()
    rp, consumers = hosts_cloud.build(api)
    tree = tree_of(api, rp["big"])
    changes = [c for u in tree
               for c in api.get(f"/history/providers/{u}", mv=MV).json()["changes"]]
    assert len(changes) == 5  # a: 3 in the tree (its disk is the pool's), b: 2
    html = staff.get(f"/console/providers/{rp['big']}/").content.decode()
    history = html.split('id="history"')[1].split("</table>")[0]
    assert history.count("<tr><td>") == len(changes)
    for u in tree - {rp["big"]}:  # the children's changes, each named
        assert f'title="{u}"' in history
    download = staff.get(f"/console/providers/{rp['big']}/", {"table": "history",
                                                              "format": "csv"})
    rows = list(csv.reader(io.StringIO(b"".join(download.streaming_content).decode())))
    assert sorted((r[1], r[2], r[3], r[5]) for r in rows[1:]) == sorted(
        (c["consumer_uuid"], c["provider_uuid"], c["resource_class"], str(c["amount_after"]))
        for c in changes)
    download = staff.get(f"/console/providers/{rp['big']}/", {"table": "consumers",
                                                              "format": "csv"})
    rows = list(csv.reader(io.StringIO(b"".join(download.streaming_content).decode())))
    assert sorted((r[0], r[6], r[4], int(r[5])) for r in rows[1:]) == sorted(
        (c, p, rc, n) for c in consumers.values()
        for (p, rc), n in held_in(api, c, tree).items())
