"""The console's forest page in a real browser (make test-browser), with a
screenshot: every tree at once, search, collapse, a root's tree totals,
trait names folded after a few, and the trees each sharing pool serves."""
import pytest

from tests.browser.conftest import SHOTS
from tests.browser.login import follow

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def cloud(transactional_db):
    from django.contrib.auth import get_user_model

    from tests.support.world import World

    get_user_model().objects.create_user("operator", password="s3cret-pw", is_staff=True)
    w = World()
    agg = w.aggregate()
    cpu = ["HW_CPU_X86_AVX", "HW_CPU_X86_AVX2", "HW_CPU_X86_SSE42", "HW_CPU_X86_AESNI",
           "HW_NUMA_ROOT"]
    for i in (1, 2):
        cn = w.provider(f"cn{i}", inventory={"MEMORY_MB": 65536}, aggs=[agg],
                        traits=["COMPUTE_VOLUME_MULTI_ATTACH"])
        for cell in (0, 1):
            numa = w.provider(f"cn{i}-numa{cell}", parent=cn, inventory={"PCPU": 16},
                              traits=cpu)
            w.allocate(numa, "PCPU", 4 * (cell + 1))
        w.provider(f"cn{i}-nic0", parent=cn,
                   inventory={"NET_BW_EGR_KILOBIT_PER_SEC": 25_000_000},
                   traits=["HW_NIC_SRIOV", "CUSTOM_PHYSNET_PUBLIC"])
    w.provider("pool", inventory={"DISK_GB": 20000}, aggs=[agg],
               traits=["MISC_SHARES_VIA_AGGREGATE"])
    # A second pool whose aggregate holds only cn2's NIC: it serves cn2's tree.
    nic_agg = w.aggregate()
    from providers.models import ProviderAggregate, ResourceProvider

    ProviderAggregate.objects.create(resource_provider=ResourceProvider.objects.get(name="cn2-nic0"),
                                     aggregate=nic_agg)
    w.provider("pool-nvme", inventory={"DISK_GB": 4000}, aggs=[nic_agg],
               traits=["MISC_SHARES_VIA_AGGREGATE", "CUSTOM_NVME"])
    return w


def test_forest_search_collapse_and_tree_totals(browser, live_server, cloud):  # noqa: F811
    SHOTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    base = live_server.url
    page.goto(f"{base}/console/forest/")
    page.fill("input[name=username]", "operator")
    page.fill("input[name=password]", "s3cret-pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/console/forest/")
    assert "4 tree(s)" in page.locator("#forest-count").inner_text()
    first = page.locator("details.tree").first
    assert "PCPU 12/32" in first.locator(":scope > summary").inner_text()
    assert page.locator("details.tree table.forest tr").count() >= 10

    # Traits by name: three on the row, the other two behind "+2 more".
    numa = page.locator("tr", has=page.locator("a", has_text="cn1-numa0")).locator("td.traits")
    assert numa.locator("span.tag.trait:visible").count() == 3
    assert "+2 more" in numa.inner_text()
    assert sorted(numa.get_attribute("title").split(", ")) == sorted(cpu_traits())
    numa.locator("summary").click()
    assert numa.locator("span.tag.trait:visible").count() == 5

    # Each pool names the trees it serves; each tree, the pools serving it.
    serves = {p: page.locator(f"#tree-{cloud_uuid(p)} div.sharing").inner_text()
              for p in ("pool", "pool-nvme")}
    assert "serves 2 trees" in serves["pool"] and "cn1" in serves["pool"]
    assert "serves 1 tree" in serves["pool-nvme"] and "cn1" not in serves["pool-nvme"]
    cn2 = page.locator(f"#tree-{cloud_uuid('cn2')} > summary").inner_text()
    assert "served by pool" in cn2 and "served by pool-nvme" in cn2
    assert "pool-nvme" not in page.locator(f"#tree-{cloud_uuid('cn1')} > summary").inner_text()
    page.screenshot(path=str(SHOTS / "forest.png"), full_page=True)
    page.locator(f"#tree-{cloud_uuid('cn2')} > summary a.served", has_text="pool-nvme").click()
    assert page.url.endswith(f"#tree-{cloud_uuid('pool-nvme')}")

    page.click("#collapse-all")
    assert page.locator("details.tree[open]").count() == 0
    page.click("#expand-all")
    assert page.locator("details.tree[open]").count() == 4

    page.fill("input[name=q]", "cn2-nic")
    page.click("form.search button[type=submit]")
    page.wait_for_selector("#forest-count")
    assert "1 tree(s)" in page.locator("#forest-count").inner_text()
    assert "cn2-numa1" in page.locator("details.tree").inner_text()

    follow(page, "text=cn2-numa1")
    follow(page, "#tree a >> text=cn2")
    totals = page.locator("#tree-totals").inner_text()
    assert "PCPU" in totals and "NET_BW_EGR_KILOBIT_PER_SEC" in totals
    page.screenshot(path=str(SHOTS / "root_tree_totals.png"), full_page=True)


def cpu_traits():
    from providers.models import ProviderTrait

    return list(ProviderTrait.objects.filter(resource_provider__name="cn1-numa0")
                .values_list("trait__name", flat=True))


def cloud_uuid(name):
    from providers.models import ResourceProvider

    return ResourceProvider.objects.get(name=name).uuid
