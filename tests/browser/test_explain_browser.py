"""The console's explain page in a real browser (make test-browser), with screenshots."""
import pytest

from tests.browser.conftest import SHOTS
from tests.browser.login import follow, login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def cloud(transactional_db):
    from django.contrib.auth import get_user_model

    from tests.support.world import World

    get_user_model().objects.create_user("operator", password="s3cret-pw", is_staff=True)
    w = World()
    agg = w.aggregate()
    cn1 = w.provider("cn1", inventory={"MEMORY_MB": 16384}, aggs=[agg])
    w.provider("cn1-numa0", parent=cn1, inventory={"VCPU": {"total": 16, "max_unit": 4}})
    cn2 = w.provider("cn2", inventory={"MEMORY_MB": 16384}, aggs=[agg])
    numa = w.provider("cn2-numa0", parent=cn2, inventory={"VCPU": 16})
    w.allocate(numa, "VCPU", 14)
    w.provider("cpu-only", inventory={"VCPU": 32})
    w.provider("pool", inventory={"DISK_GB": 2000}, aggs=[agg],
               traits=["MISC_SHARES_VIA_AGGREGATE"])
    return w



def test_explain_page_names_max_unit_capacity_and_trees(browser, live_server, cloud):  # noqa: F811
    SHOTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    base = live_server.url
    login(page, base, "/console/why/")
    page.fill("[name=q]", "resources=VCPU:6,MEMORY_MB:1024,DISK_GB:10")
    page.click("form.why button")
    page.wait_for_selector("#verdict")
    assert "No candidates" in page.locator("#verdict").inner_text()
    group = page.locator("#group-unsuffixed")
    # The providers' step first, then the trees' step, which names the same
    # failure since explain reports a tree's real reason.
    max_unit = group.locator("tr.kind-max_unit")
    assert "asked 6 VCPU > max_unit 4" in max_unit.first.inner_text()
    assert "1 trees" in max_unit.last.inner_text() and "cn1" in max_unit.last.inner_text()
    capacity = group.locator("tr.kind-capacity").first.inner_text()
    assert "cn2-numa0" in capacity and "free 2" in capacity
    assert "pool" in group.locator(".sharing").inner_text()
    assert "cn1-numa0" in group.locator(".closest").inner_text()
    page.screenshot(path=str(SHOTS / "explain_no_candidates.png"), full_page=True)

    page.fill("[name=q]", "resources=VCPU:4,MEMORY_MB:1024,DISK_GB:10")
    page.click("form.why button")
    page.wait_for_selector("#verdict.ok")
    assert "1 allocation request(s) found." in page.locator("#verdict").inner_text()
    assert "pool (DISK_GB 10 GiB)" in page.locator("#candidates").inner_text()  # in its unit
    page.screenshot(path=str(SHOTS / "explain_candidates.png"), full_page=True)

    follow(page, "#group-unsuffixed .closest a >> nth=0")
    assert page.locator("h1").inner_text().startswith("Provider ")
    page.close()
