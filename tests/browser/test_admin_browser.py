"""The Django admin in a real browser (make test-browser), with screenshots:
the provider list fits a laptop's screen, the provider page's rows read as
what they are under nova-compute's warning, a refused inventory edit keeps
what was typed, and Placement's users are told apart from the accounts."""
import pytest

from tests.browser.conftest import SHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def cloud(transactional_db):
    from django.contrib.auth import get_user_model

    from tests.support.world import World

    get_user_model().objects.create_superuser("admin", password="s3cret-pw")
    w = World()
    agg = w.aggregate()
    for i in range(1, 4):
        cn = w.provider(f"compute-{i:02d}.cloud.example.org", inventory={"MEMORY_MB": 262144},
                        aggs=[agg], traits=["COMPUTE_NET_VIF_MODEL_VIRTIO", "HW_CPU_X86_AVX2"])
        for cell in (0, 1):
            numa = w.provider(f"compute-{i:02d}.cloud.example.org_numa{cell}", parent=cn,
                              inventory={"VCPU": {"total": 32, "max_unit": 32}, "PCPU": 16})
            w.allocate(numa, "VCPU", 6)
    w.provider("shared-disk-pool", inventory={"DISK_GB": 100000}, aggs=[agg],
               traits=["MISC_SHARES_VIA_AGGREGATE"])
    return w


def log_in(page, base, url):
    page.goto(f"{base}{url}")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", "s3cret-pw")
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}{url}")


def overflow(page, selector=None):
    """How many pixels the page (or the element) is wider than its box."""
    element = f"document.querySelector({selector!r})" if selector else "document.documentElement"
    return page.evaluate(f"{element}.scrollWidth - {element}.clientWidth")


def test_admin_reads_well_and_keeps_a_refused_edit(browser, live_server, cloud):
    SHOTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    base = live_server.url
    log_in(page, base, "/admin/providers/resourceprovider/")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 10
    assert overflow(page) <= 0, "the provider list is wider than the window"
    assert overflow(page, "#changelist .results") <= 0, "the provider list scrolls sideways"
    child = rows.filter(has_text="compute-01.cloud.example.org_numa0")
    assert "compute-01.cloud.example.org" in child.locator("td.field-parent_name").inner_text()
    assert page.locator("#result_list thead th").count() == 4
    page.screenshot(path=str(SHOTS / "admin_providers.png"), full_page=True)

    page.goto(f"{base}/admin/")
    index = page.locator("#content-main").inner_text()
    assert "Placement users (consumers' owners, not logins)" in index
    assert index.count("Users") == 1

    page.goto(f"{base}/admin/providers/resourceprovider/")
    page.click("text=compute-01.cloud.example.org_numa0")
    page.wait_for_selector("#nova-warning")
    assert overflow(page) <= 0, "the provider page is wider than the window"
    warning = page.locator("#nova-warning").inner_text()
    assert "managed by nova-compute" in warning and "COMPUTE_NET_VIF_MODEL_VIRTIO" in warning
    inventory = page.locator("tr.form-row", has_text="VCPU")
    inventory.locator("input[name$='-reserved']").fill("40")  # above the total of 32
    inventory.locator("input[name$='-allocation_ratio']").fill("4.0")
    page.click("input[name=_save]")
    page.wait_for_selector("p.errornote")
    assert "Not saved" in page.locator("ul.errorlist").first.inner_text()
    kept = page.locator("tr.form-row", has_text="VCPU")
    assert kept.locator("input[name$='-reserved']").input_value() == "40"
    assert kept.locator("input[name$='-allocation_ratio']").input_value() == "4.0"
    assert "object (" not in page.locator("#content-main").inner_text()
    page.screenshot(path=str(SHOTS / "admin_inventory_refused.png"), full_page=True)
