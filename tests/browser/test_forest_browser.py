"""The console's forest page in a real browser (make test-browser), with a
screenshot: every tree at once, search, collapse, and a root's tree totals."""
import pytest

from tests.browser.conftest import SHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def cloud(transactional_db):
    from django.contrib.auth import get_user_model

    from tests.support.world import World

    get_user_model().objects.create_user("operator", password="s3cret-pw", is_staff=True)
    w = World()
    agg = w.aggregate()
    for i in (1, 2):
        cn = w.provider(f"cn{i}", inventory={"MEMORY_MB": 65536}, aggs=[agg])
        for cell in (0, 1):
            numa = w.provider(f"cn{i}-numa{cell}", parent=cn, inventory={"PCPU": 16})
            w.allocate(numa, "PCPU", 4 * (cell + 1))
        w.provider(f"cn{i}-nic0", parent=cn,
                   inventory={"NET_BW_EGR_KILOBIT_PER_SEC": 25_000_000})
    w.provider("pool", inventory={"DISK_GB": 20000}, aggs=[agg],
               traits=["MISC_SHARES_VIA_AGGREGATE"])
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
    assert "3 tree(s)" in page.locator("#forest-count").inner_text()
    first = page.locator("details.tree").first
    assert "PCPU 12/32" in first.locator("summary").inner_text()
    assert page.locator("details.tree table.forest tr").count() >= 10
    page.screenshot(path=str(SHOTS / "forest.png"), full_page=True)

    page.click("#collapse-all")
    assert page.locator("details.tree[open]").count() == 0
    page.click("#expand-all")
    assert page.locator("details.tree[open]").count() == 3

    page.fill("input[name=q]", "cn2-nic")
    page.click("form.search button[type=submit]")
    page.wait_for_selector("#forest-count")
    assert "1 tree(s)" in page.locator("#forest-count").inner_text()
    assert "cn2-numa1" in page.locator("details.tree").inner_text()

    page.click("text=cn2-numa1")
    page.click("#tree a >> text=cn2")
    totals = page.locator("#tree-totals").inner_text()
    assert "PCPU" in totals and "NET_BW_EGR_KILOBIT_PER_SEC" in totals
    page.screenshot(path=str(SHOTS / "root_tree_totals.png"), full_page=True)
