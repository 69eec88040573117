"""The console in a real browser: Playwright + Debian's chromium, headless.

Run with `make test-browser` (installs chromium and Playwright when missing).
Screenshots go to tests/browser/screenshots/ (kept out of git).
"""
import pytest

from tests.browser.conftest import SHOTS
from tests.browser.login import follow

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def seeded(transactional_db):
    from django.contrib.auth import get_user_model

    from tests.console.populate import populate

    get_user_model().objects.create_user("operator", password="s3cret-pw", is_staff=True)
    return populate(30)


def test_console_walkthrough(browser, live_server, seeded):
    SHOTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    base = live_server.url

    page.goto(f"{base}/console/")
    assert "/console/login/" in page.url
    page.fill("input[name=username]", "operator")
    page.fill("input[name=password]", "s3cret-pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/console/")
    assert page.locator("h1").inner_text() == "Overview"
    assert "63 providers" in " ".join(page.locator("ul.counts").inner_text().split())
    assert page.locator("#totals svg.bar").count() == 3  # DISK_GB, MEMORY_MB, VCPU
    css = page.evaluate("getComputedStyle(document.querySelector('header')).backgroundColor")
    assert css == "rgb(20, 33, 46)"  # the local stylesheet loaded
    page.screenshot(path=str(SHOTS / "overview.png"), full_page=True)

    root = seeded["roots"][0]
    follow(page, "text=Providers")
    page.fill("input[name=q]", root.name)
    follow(page, "form.filters button")
    page.click(f"#providers >> text={root.name}")
    page.wait_for_url(f"{base}/console/providers/{root.uuid}/")
    assert f"Provider {root.name}" == page.locator("h1").inner_text()
    assert f"{root.name}-numa0" in page.locator("#tree").inner_text()
    assert "disk000" in page.locator("#sharing").inner_text()
    page.screenshot(path=str(SHOTS / "provider_root.png"), full_page=True)

    follow(page, f"#tree >> text={root.name}-numa0")
    assert "HW_CPU_X86_AVX" in page.locator("#traits").inner_text()
    assert page.locator("#capacity svg.bar").count() == 2
    page.screenshot(path=str(SHOTS / "provider_child.png"), full_page=True)

    consumer = seeded["consumers"][0]
    page.click(f"#consumers a[href='/console/consumers/{consumer.uuid}/']")
    page.wait_for_url(f"{base}/console/consumers/{consumer.uuid}/")
    allocs = page.locator("#allocations").inner_text()
    assert "DISK_GB" in allocs and "VCPU" in allocs and f"{root.name}-numa0" in allocs
    page.screenshot(path=str(SHOTS / "consumer.png"), full_page=True)

    follow(page, "text=Why no candidates?")
    page.fill("[name=q]", "resources=VCPU:64&required=HW_CPU_X86_AVX")
    follow(page, "form.why button")
    text = page.locator("#group-unsuffixed").inner_text()
    assert "has no VCPU inventory" in text and "max_unit" in text
    assert "No candidates" in page.locator("#verdict").inner_text()
    page.screenshot(path=str(SHOTS / "why_no_candidates.png"), full_page=True)
    page.close()
