"""The console on a cloud of many hosts, in a real browser: sorting by
fullness across pages, the full-hosts page, the audit page with a fix, and
the phone layout (390 px). Each saves a screenshot in tests/browser/screenshots/."""
import pytest

from tests.browser.conftest import SHOTS
from tests.browser.login import follow, login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def fleet(transactional_db):
    """120 hosts with a NUMA cell each (populate's cloud: VCPU used 4 to 102
    of 128 on the cells), one host disabled, a few filled up."""
    from django.contrib.auth import get_user_model

    from allocations.models import Allocation
    from providers.models import ProviderTrait
    from resource_classes.models import Trait
    from tests.console.populate import populate

    get_user_model().objects.create_user("operator", password="s3cret-pw", is_staff=True)
    data = populate(120)
    # Fill the memory of three hosts' NUMA cells (names late in the alphabet).
    for child, used in ((data["children"][117], 63000), (data["children"][90], 62000),
                        (data["children"][61], 60000)):
        Allocation.objects.filter(resource_provider=child, resource_class__name="MEMORY_MB") \
            .update(used=used)
    # The host cn0090 is disabled: the trait on its root marks its whole tree.
    disabled = data["roots"][90]
    ProviderTrait.objects.create(resource_provider=disabled,
                                 trait=Trait.objects.get(name="COMPUTE_STATUS_DISABLED"))
    return data



def _names(page, table="#providers"):
    return page.locator(f"{table} tbody tr td:first-child a").all_inner_texts()


def _fullness(page):
    return [float(x) for x in page.locator(
        "#providers tbody tr td.full-col span[data-sort]").evaluate_all(
        "els => els.map(e => e.dataset.sort)")]


def test_sort_by_fullness_across_pages(browser, live_server, fleet):  # noqa: F811
    SHOTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    base = live_server.url
    login(page, base, "/console/providers/")
    page.select_option("select[name=sort]", "full")
    follow(page, "form.filters button")
    first = _names(page)
    # The three filled cells lead although their names sort late.
    assert first[:3] == ["cn0117-numa0", "cn0090-numa0", "cn0061-numa0"]
    assert page.locator("#providers tbody tr").first.locator(".tag.disabled").count() == 0
    assert page.locator("#providers tbody tr").nth(1).locator(".tag.disabled").count() == 1
    page_one = _fullness(page)
    assert page_one == sorted(page_one, reverse=True)
    page.screenshot(path=str(SHOTS / "providers_by_fullness.png"), full_page=False)
    follow(page, "nav.pager >> text=next")
    page_two = _fullness(page)
    assert page_two == sorted(page_two, reverse=True)
    assert max(page_two) <= min(page_one)  # the order holds across pages
    # Per class: sort by VCPU; the heading link reverses the order.
    page.select_option("select[name=class]", "VCPU")
    follow(page, "form.filters button")
    vcpu = _fullness(page)
    assert vcpu[0] == pytest.approx(102 / 128) and vcpu == sorted(vcpu, reverse=True)
    follow(page, "#providers thead th.full-col a")
    assert "sort=empty" in page.url
    empty = _fullness(page)
    assert empty == sorted(empty) and empty[0] == pytest.approx(4 / 128)
    page.close()


def test_full_hosts_view(browser, live_server, fleet):  # noqa: F811
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    base = live_server.url
    login(page, base)
    page.click("header nav >> text=Full hosts")
    page.wait_for_url(f"{base}/console/full/")
    assert page.locator("header nav a[aria-current=page]").inner_text() == "Full hosts"
    assert _names(page, "#full-hosts") == ["cn0117-numa0", "cn0090-numa0", "cn0061-numa0"]
    row = page.locator("#full-hosts tbody tr").nth(1)
    assert row.locator(".tag.disabled").count() == 1
    assert "cn0090" in row.locator("td").nth(1).inner_text()  # its root
    assert "MEMORY_MB" in row.inner_text() and "VCPU" not in row.inner_text()
    page.screenshot(path=str(SHOTS / "full_hosts.png"), full_page=True)
    page.fill("input[name=above]", "75")
    page.select_option("select[name=class]", "VCPU")
    follow(page, "form.filters button")
    # VCPU used 4 + (i % 8) * 14 of 128: 102 (79.7 %) on every eighth cell.
    assert page.locator("#full-count").inner_text().startswith("15 providers")
    with page.expect_download() as download:
        page.click("#csv")
    assert download.value.suggested_filename == "full-hosts.csv"
    page.close()


def test_audit_page_and_fix(browser, live_server, fleet):  # noqa: F811
    from allocations.models import Allocation, Consumer
    from tests import factories as f

    empty = f.ConsumerFactory()
    # Consumer 8 holds VCPU 4 (within max_unit 32: its rewrite passes the unit checks).
    orphan = fleet["consumers"][8]
    f.AllocationFactory(consumer=orphan, resource_provider=fleet["roots"][8],
                        resource_class=f.resource_class("VCPU"), used=2)  # the root has no VCPU
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    base = live_server.url
    login(page, base)
    follow(page, "header nav >> text=Audit")
    summary = page.locator("#audit-summary").inner_text()
    assert "Allocations without inventory\t1" in summary
    assert "Consumers without allocations\t1" in summary
    page.screenshot(path=str(SHOTS / "audit.png"), full_page=True)
    follow(page, page.locator("#audit-summary tr", has_text="Allocations without inventory")
           .locator("a.fix"))
    assert "cn0008" in page.locator("#confirm").inner_text()
    page.screenshot(path=str(SHOTS / "audit_confirm.png"), full_page=False)
    assert Allocation.objects.filter(consumer=orphan).count() == 4  # nothing yet
    follow(page, "#confirm button")
    assert "Rewrote 1 consumer(s)" in page.locator("#fix-result").inner_text()
    assert Allocation.objects.filter(consumer=orphan).count() == 3
    assert Consumer.objects.filter(pk=empty.pk).exists()  # the other fix was not asked for
    page.close()


def test_phone_layout_keeps_capacity_and_disabled_badge_on_screen(
        browser, live_server, fleet):  # noqa: F811
    page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                            is_mobile=True, has_touch=True)
    base = live_server.url
    login(page, base, "/console/providers/?sort=full")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    row = page.locator("#providers tbody tr").nth(1)
    for locator in (row.locator(".tag.disabled"), row.locator("td.capcol svg.bar").first,
                    row.locator("td.capcol .amount").last, row.locator("td.full-col")):
        box = locator.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert not page.locator("#providers thead th.wide").first.is_visible()  # uuid column
    page.screenshot(path=str(SHOTS / "phone_providers.png"), full_page=False)
    page.goto(f"{base}/console/full/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    badge = page.locator("#full-hosts .tag.disabled").bounding_box()
    assert badge["x"] + badge["width"] <= 390
    page.screenshot(path=str(SHOTS / "phone_full_hosts.png"), full_page=False)
    page.close()


def test_paste_a_logged_url_into_explain(browser, live_server, fleet):  # noqa: F811
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    base = live_server.url
    login(page, base, "/console/why/")
    line = ("2026-11-24 10:01:02.345 1234 DEBUG nova.scheduler.client.report "
            "[req-2a6f7b3e-9c1d-4e55-8f0a-1b2c3d4e5f60 admin admin] GET call to placement for "
            "http://controller:8778/placement/allocation_candidates?limit=1000&resources="
            "DISK_GB%3A20%2CMEMORY_MB%3A70000%2CVCPU%3A2&root_required=%21COMPUTE_STATUS_DISABLED"
            " used request id req-2a6f7b3e-9c1d-4e55-8f0a-1b2c3d4e5f60")
    page.fill("[name=q]", line)
    follow(page, "form.why button")
    assert "limit=1000&resources=DISK_GB" in page.locator("#read").inner_text()
    assert "No candidates" in page.locator("#verdict").inner_text()
    fold = page.locator("details.fold", has_text="has no MEMORY_MB inventory").first
    summary = fold.locator("summary").inner_text()
    # 120 roots and 12 disk pools hold no memory: the first 100 are named.
    assert summary.startswith("100 providers: has no MEMORY_MB inventory"), summary
    cell = page.locator("tr", has=fold).locator("td").last.inner_text()
    assert "… and 32 more not listed (132 in all)" in cell
    assert not fold.locator("a").first.is_visible()
    fold.locator("summary").click()
    assert fold.locator("a").count() == 100 and fold.locator("a").first.is_visible()
    fold.locator("summary").click()
    page.screenshot(path=str(SHOTS / "why_logged_line.png"), full_page=False)
    # A bad paste: a sentence, no schema.
    page.fill("[name=q]", "GET /placement/allocation_candidates?resources=VCPU:1&flavor=m1")
    follow(page, "form.why button")
    problem = page.locator("#problem").inner_text()
    assert "'flavor' is not a parameter of GET /allocation_candidates" in problem
    assert "regexes" not in page.content()
    page.close()
