"""The forest page: every tree at once with inventory, usage and consumers;
a search; a root's page sums its tree; a sharing provider's page lists the
trees it serves."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.html import strip_tags

from tests.support.world import World

pytestmark = pytest.mark.django_db


@pytest.fixture
def cloud():
    w = World()
    agg = w.aggregate()
    w.cn1 = w.provider("cn1", inventory={"MEMORY_MB": 4096}, aggs=[agg])
    w.n0 = w.provider("cn1-numa0", parent=w.cn1, inventory={"PCPU": 8})
    w.n1 = w.provider("cn1-numa1", parent=w.cn1, inventory={"PCPU": 8})
    w.nic = w.provider("cn1-nic", parent=w.cn1,
                       inventory={"NET_BW_EGR_KILOBIT_PER_SEC": 10_000_000})
    w.allocate(w.n0, "PCPU", 3)
    w.allocate(w.n1, "PCPU", 2)
    w.cn2 = w.provider("cn2", inventory={"VCPU": 16})
    w.pool = w.provider("pool", inventory={"DISK_GB": 2000}, aggs=[agg],
                        traits=["MISC_SHARES_VIA_AGGREGATE"])
    return w


def test_every_tree_with_its_nodes_and_totals(staff, cloud):
    html = staff.get("/console/forest/").content.decode()
    for name in ("cn1", "cn1-numa0", "cn1-numa1", "cn1-nic", "cn2", "pool"):
        assert f">{name}</a>" in html
    assert "3 tree(s)" in html
    html = strip_tags(html)  # amounts are spans with the raw count on hover
    assert "PCPU 5/16" in html  # the tree's sum over both NUMA cells
    assert "PCPU 3/8" in html  # one cell


def test_search_keeps_trees_holding_a_match(staff, cloud):
    html = staff.get("/console/forest/", {"q": "numa1"}).content.decode()
    assert "1 tree(s) holding a provider matching" in html
    assert ">cn1-numa0</a>" in html  # the whole tree is shown
    assert ">cn2</a>" not in html


def test_query_count_does_not_grow_with_the_forest(staff, cloud):
    with CaptureQueriesContext(connection) as small:
        staff.get("/console/forest/")
    w = World()
    for i in range(20):
        root = w.provider(f"extra{i}", inventory={"VCPU": 4})
        w.provider(f"extra{i}-numa", parent=root, inventory={"PCPU": 2})
    with CaptureQueriesContext(connection) as large:
        staff.get("/console/forest/")
    assert len(large.captured_queries) == len(small.captured_queries)


def test_root_page_sums_its_tree(staff, cloud):
    html = staff.get(f"/console/providers/{cloud.cn1.uuid}/").content.decode()
    assert 'id="tree-totals"' in html
    row = html.split('id="tree-totals"')[1].split("</table>")[0]
    pcpu = row.split("<td>PCPU</td>")[1].split("</tr>")[0]
    assert [f'data-sort="{n}">{n}<' in pcpu for n in (16, 5, 11)] == [True] * 3
    assert "NET_BW_EGR_KILOBIT_PER_SEC" in row
    assert ">10 Gbit/s<" in row  # 10,000,000 kbit/s, raw on hover


def test_sharing_provider_lists_the_trees_it_serves(staff, cloud):
    html = staff.get(f"/console/providers/{cloud.pool.uuid}/").content.decode()
    served = html.split('id="served"')[1].split("</ul>")[0]
    assert ">cn1</a>" in served and ">cn2</a>" not in served


def test_disabled_hosts_are_marked(staff, cloud):
    from providers.models import ProviderTrait
    from tests.factories import trait

    ProviderTrait.objects.create(resource_provider=cloud.cn2,
                                 trait=trait("COMPUTE_STATUS_DISABLED"))
    html = staff.get("/console/forest/").content.decode()
    assert html.count('class="tag disabled"') == 1


def test_disabled_hosts_are_marked_on_the_list_and_their_page(staff, cloud):
    from providers.models import ProviderTrait
    from tests.factories import trait

    ProviderTrait.objects.create(resource_provider=cloud.cn2,
                                 trait=trait("COMPUTE_STATUS_DISABLED"))
    listing = staff.get("/console/providers/").content.decode()
    row = listing.split(">cn2</a>")[1].split("</td>")[0]
    assert 'class="tag disabled"' in row
    assert listing.count('class="tag disabled"') == 1
    page = staff.get(f"/console/providers/{cloud.cn2.uuid}/").content.decode()
    assert 'class="tag disabled"' in page.split("</h1>")[0]


def test_a_tree_counts_each_consumer_once(staff, cloud):
    """A consumer spanning the root, a NUMA cell and the NIC is one consumer
    of the tree, and one holding the tree and the sharing pool is one of
    each tree; checked against a count made from the allocation rows."""
    from allocations.models import Allocation
    from console.selectors import forest
    from tests.factories import AllocationFactory, ConsumerFactory, resource_class

    spanning, shared = ConsumerFactory(), ConsumerFactory()
    for rp, rc, n in ((cloud.cn1, "MEMORY_MB", 512), (cloud.n0, "PCPU", 1),
                      (cloud.nic, "NET_BW_EGR_KILOBIT_PER_SEC", 1000)):
        AllocationFactory(consumer=spanning, resource_provider=rp,
                          resource_class=resource_class(rc), used=n)
    AllocationFactory(consumer=shared, resource_provider=cloud.n1,
                      resource_class=resource_class("PCPU"), used=1)
    AllocationFactory(consumer=shared, resource_provider=cloud.pool,
                      resource_class=resource_class("DISK_GB"), used=10)
    expected = {}
    for root, consumer in Allocation.objects.values_list(
            "resource_provider__root__name", "consumer__uuid"):
        expected.setdefault(root, set()).add(consumer)
    trees, _ = forest()
    counted = {t.root.name: t.consumers for t in trees}
    assert counted == {"cn1": len(expected["cn1"]), "cn2": 0, "pool": 1}
    assert counted["cn1"] == 4  # the two of the fixture, spanning, shared
    html = strip_tags(staff.get("/console/forest/").content.decode())
    assert "4 provider(s), 4 consumer(s)" in html


def _tree_block(html, root):
    """The forest page's <details> of the tree rooted at ``root``."""
    return html.split(f'id="tree-{root.uuid}"')[1].split("</details>\n")[0]


def test_traits_are_named_a_few_then_how_many_more(staff, cloud):
    """A provider's traits by name: the first few on the row, the rest
    counted ("+N more") and every one in the cell's title; counted from the
    provider's trait rows, not from the page's own figures."""
    from providers.models import ProviderTrait
    from tests.factories import trait

    names = ["HW_CPU_X86_AVX", "HW_CPU_X86_AVX2", "HW_CPU_X86_SSE42", "HW_NIC_SRIOV",
             "COMPUTE_VOLUME_MULTI_ATTACH", "CUSTOM_GOLD"]
    for name in names:
        ProviderTrait.objects.create(resource_provider=cloud.n0, trait=trait(name))
    stored = sorted(ProviderTrait.objects.filter(resource_provider=cloud.n0)
                    .values_list("trait__name", flat=True))
    html = staff.get("/console/forest/").content.decode()
    row = html.split(">cn1-numa0</a>")[1].split("</tr>")[0]
    cell = row.split('class="traits"')[1]
    title = cell.split('title="')[1].split('"')[0]
    assert title.split(", ") == stored
    shown = [n for n in stored if f">{n}<" in cell.split("more-traits")[0]]
    assert 0 < len(shown) < len(stored)
    assert f"+{len(stored) - len(shown)} more" in strip_tags(cell)
    # A provider with one trait shows it, and no "more".
    pool_row = strip_tags(html.split(">pool</a></td>")[1].split("</tr>")[0])
    assert "MISC_SHARES_VIA_AGGREGATE" in pool_row and "more" not in pool_row


def test_sharing_pool_draws_the_trees_it_serves(staff, cloud):
    """Each sharing pool's tree names the trees it serves and each served
    tree names its pools; the trees served are counted from the aggregate
    rows (every tree with a provider in one of the pool's aggregates, as
    the candidate engine reaches them), here a nested one whose root is in
    no aggregate among them."""
    from providers.models import ProviderAggregate

    w = World()
    agg = ProviderAggregate.objects.filter(resource_provider=cloud.pool).first().aggregate
    w.cn3 = w.provider("cn3", inventory={"VCPU": 8})
    w.provider("cn3-numa0", parent=w.cn3, inventory={"PCPU": 4}, aggs=[agg])
    w.cn4 = w.provider("cn4", inventory={"VCPU": 8}, aggs=[w.aggregate()])
    pool_aggs = ProviderAggregate.objects.filter(resource_provider=cloud.pool).values("aggregate_id")
    expected = sorted(set(ProviderAggregate.objects.filter(aggregate_id__in=pool_aggs)
                          .exclude(resource_provider=cloud.pool)
                          .values_list("resource_provider__root__name", flat=True)))
    assert expected == ["cn1", "cn3"]
    html = staff.get("/console/forest/").content.decode()
    pool = _tree_block(html, cloud.pool)
    serves = pool.split(f'id="serves-{cloud.pool.uuid}"')[1].split("</div>")[0]
    roots = {r.name: r for r in (cloud.cn1, w.cn3, cloud.cn2, w.cn4)}
    linked = sorted(name for name, root in roots.items() if f'href="#tree-{root.uuid}"' in serves)
    assert linked == expected
    assert f"serves {len(expected)} tree" in strip_tags(serves)
    for name, root in roots.items():
        block = _tree_block(html, root)
        served_by = f'href="#tree-{cloud.pool.uuid}"' in block
        assert served_by == (name in expected), name


def test_a_pool_off_the_page_is_linked_through_a_search(staff, cloud):
    """Searched down to cn1's tree, its pool is not on the page: the link
    searches for the pool's tree instead of pointing at a missing block."""
    html = staff.get("/console/forest/", {"q": "cn1-nic"}).content.decode()
    block = _tree_block(html, cloud.cn1)
    assert f'href="?q=pool#tree-{cloud.pool.uuid}"' in block
    assert f'id="tree-{cloud.pool.uuid}"' not in html
