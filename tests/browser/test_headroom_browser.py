"""The console overview's headroom in a real browser (make test-browser),
with a screenshot: per flavor, how many more fit in the cloud and per
aggregate."""
import pytest

from tests.browser.conftest import SHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def cloud(transactional_db, settings):
    from django.contrib.auth import get_user_model

    from placement_core.querystring import parse_flavors
    from tests.support.world import World

    settings.PLACEMENT_FLAVORS = parse_flavors(
        "m1.small=VCPU:1,MEMORY_MB:2048,DISK_GB:20; m1.large=VCPU:4,MEMORY_MB:8192,DISK_GB:80")
    get_user_model().objects.create_user("operator", password="s3cret-pw", is_staff=True)
    w = World()
    agg = w.aggregate()
    for i in (1, 2):
        cn = w.provider(f"cn{i}", inventory={"MEMORY_MB": 32768}, aggs=[agg])
        w.provider(f"cn{i}-numa0", parent=cn, inventory={"VCPU": 8})
    w.provider("pool", inventory={"DISK_GB": 1000}, aggs=[agg],
               traits=["MISC_SHARES_VIA_AGGREGATE"])
    w.agg = agg
    return w


def test_overview_shows_headroom_per_flavor(browser, live_server, cloud):  # noqa: F811
    SHOTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    base = live_server.url
    page.goto(f"{base}/console/")
    page.fill("input[name=username]", "operator")
    page.fill("input[name=password]", "s3cret-pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/console/")
    rows = page.locator("#headroom tbody tr")
    assert rows.count() == 2
    # m1.large: 2 per node (8 VCPU / 4) x 2 nodes = 4; memory allows 8; disk 12.
    large = rows.nth(1).inner_text()
    assert "m1.large" in large and "\t4\t" in large
    # m1.small: 16 by VCPU and by memory, but the pool's 1000 GB give 50: 16.
    assert "\t16\t" in rows.nth(0).inner_text()
    # The aggregate by its members (the sharing pool first), its uuid on hover.
    assert large.endswith("pool, cn1, cn2 4")
    link = rows.nth(1).locator("a.aggregate")
    assert link.get_attribute("title") == f"aggregate {cloud.agg.uuid}"
    page.screenshot(path=str(SHOTS / "headroom.png"), full_page=True)
