"""A scheduling failure's page and the Usage charts in a real browser, with
screenshots: every removed provider accounted for, amounts in units, times
as the console shows them; a chart of 5-15 % usage scaled to its data with a
label a day over the forecast's window."""
import re

import pytest

from tests.browser.conftest import SHOTS
from tests.browser.login import follow, login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
HOSTS = 13


@pytest.fixture
def cloud(transactional_db):
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.utils import timezone

    from operations.models import UsageSnapshot
    from planning import failures
    from tests.support.world import PlanningWorld

    failures.explanations.reset()
    get_user_model().objects.create_user("operator", password="s3cret-pw", is_staff=True)
    w = PlanningWorld()
    rack = w.aggregate()
    w.provider("pool", inventory={"DISK_GB": 1000}, traits=["MISC_SHARES_VIA_AGGREGATE"],
               aggs=[rack])
    for i in range(HOSTS):
        host = w.provider(f"compute-{i:02d}", inventory={
            "MEMORY_MB": {"total": 262144, "max_unit": 131072}}, aggs=[rack])
        w.provider(f"compute-{i:02d}-numa0", parent=host, inventory={"VCPU": 16})
    Client().get("/allocation_candidates?resources=VCPU:1,MEMORY_MB:300000,DISK_GB:10",
                 HTTP_X_AUTH_TOKEN="nova", HTTP_X_ROLES="service",
                 HTTP_OPENSTACK_API_VERSION="placement 1.39")
    now = timezone.now()
    # 14 days, every 6 hours: memory from 5 % to 15 % of 3.25 TiB, with a dip.
    capacity = HOSTS * 262144
    rows = []
    for i in range(14 * 4 + 1):
        share = 0.05 + 0.10 * i / 56 - (0.02 if 20 <= i < 26 else 0)
        rows.append(UsageSnapshot(taken_at=now - timezone.timedelta(hours=6 * (56 - i)),
                                  aggregate_uuid="", resource_class="MEMORY_MB",
                                  capacity=capacity, used=round(capacity * share)))
    UsageSnapshot.objects.bulk_create(rows)
    return w



def test_failure_record_and_usage_chart(browser, live_server, cloud):
    SHOTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    base = live_server.url
    login(page, base)

    page.goto(f"{base}/console/failures/")
    newest = page.inner_text("#failures")
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d", newest)
    assert "max_unit 128 GiB" in newest and "131072" not in newest
    follow(page, page.locator("#failures tbody tr").nth(0).locator("a"))
    text = page.inner_text("main")
    # By hand: 13 roots over max_unit, 5 kept: 8 more; 26 providers without disk: 21 more.
    assert "and 8 more" in text and "and 21 more" in text
    assert "131072" not in text and "max_unit 128 GiB" in text
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d", text)
    page.screenshot(path=str(SHOTS / "failure-record.png"), full_page=True)

    follow(page, "nav >> text=Usage")
    assert page.input_value("input[name=days]") == "14"
    chart = page.locator("svg.chart").first
    labels = chart.locator("text.ylabel").all_text_contents()
    # Used 5 % to 15 % of 3,328 GiB, 133 to 499 GiB (the dip lower): the axis
    # starts near the lowest, not at 0, and ends near the highest.
    assert labels[0] != "0 GiB" and labels[-1] in ("500 GiB", "600 GiB"), labels
    assert "above the scale" in chart.text_content()
    assert chart.locator("text.xlabel").count() >= 13
    box = chart.locator("polyline.used").bounding_box()
    plot = chart.bounding_box()
    assert box["height"] > plot["height"] * 0.5  # the trend fills the plot
    page.screenshot(path=str(SHOTS / "usage-chart.png"), full_page=False)
