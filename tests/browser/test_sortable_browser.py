"""Console tables sort by a click on their heading (raw amounts, not the
displayed units), in a real browser."""
import pytest


pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_overview_totals_sort_by_raw_capacity(browser, live_server, transactional_db):  # noqa: F811
    from django.contrib.auth import get_user_model

    from tests.support.world import World

    get_user_model().objects.create_user("operator", password="s3cret-pw", is_staff=True)
    w = World()
    # 2 GiB of memory sorts below 100 VCPU although "2 GiB" reads as 2.
    w.provider("cn", inventory={"MEMORY_MB": 2048, "VCPU": 100, "DISK_GB": 50})
    page = browser.new_page()
    base = live_server.url
    page.goto(f"{base}/console/")
    page.fill("input[name=username]", "operator")
    page.fill("input[name=password]", "s3cret-pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/console/")
    classes = lambda: page.locator("#totals tbody tr td:first-child").all_inner_texts()  # noqa: E731
    assert classes() == ["DISK_GB", "MEMORY_MB", "VCPU"]
    page.click("#totals thead th:nth-child(5)")  # Capacity, ascending
    assert classes() == ["DISK_GB", "VCPU", "MEMORY_MB"]
    page.click("#totals thead th:nth-child(5)")  # descending
    assert classes() == ["MEMORY_MB", "VCPU", "DISK_GB"]
