"""The planning pages in a real browser (make test-browser), with screenshots:
the provider page's Drain what-if button and its answer, the picker by
aggregate, the forecast and stranded capacity on the Usage page, and a
scheduling failure found by its global request id."""
import pytest

from tests.browser.conftest import SHOTS
from tests.browser.login import follow, login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
GLOBAL = "req-0b1e2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"


@pytest.fixture
def cloud(transactional_db):
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.utils import timezone

    from operations.models import UsageSnapshot
    from tests.support.world import PlanningWorld

    get_user_model().objects.create_user("operator", password="s3cret-pw", is_staff=True)
    w = PlanningWorld()
    rack = w.aggregate()
    hosts = []
    for i in range(1, 4):
        cn = w.provider(f"cn{i}", inventory={"MEMORY_MB": 32768}, aggs=[rack] if i < 3 else [])
        cell = w.provider(f"cn{i}-numa0", parent=cn, inventory={"VCPU": 16, "PCPU": 4})
        hosts.append((cn, cell))
    cn1, cell1 = hosts[0]
    w.consumer({cn1: {"MEMORY_MB": 8192}, cell1: {"VCPU": 4}})
    w.consumer({cn1: {"MEMORY_MB": 4096}, cell1: {"VCPU": 2, "PCPU": 4}})
    cn2, cell2 = hosts[1]
    w.consumer({cn2: {"MEMORY_MB": 30000}, cell2: {"VCPU": 12}})
    now = timezone.now()
    UsageSnapshot.objects.bulk_create([
        UsageSnapshot(taken_at=now - timezone.timedelta(days=d), aggregate_uuid="",
                      resource_class=rc, capacity=cap, used=int(used * (1 - d / 20)))
        for d in range(14) for rc, cap, used in (("VCPU", 48, 18), ("MEMORY_MB", 98304, 42288))])
    Client().get("/allocation_candidates?resources=VCPU:2,MEMORY_MB:65536",
                 HTTP_X_AUTH_TOKEN="nova", HTTP_X_ROLES="service",
                 HTTP_OPENSTACK_API_VERSION="placement 1.39", HTTP_X_OPENSTACK_REQUEST_ID=GLOBAL)
    w.rack, w.cn1 = rack, cn1
    return w



def test_drain_forecast_and_failures(browser, live_server, cloud):  # noqa: F811
    SHOTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    base = live_server.url
    login(page, base)

    page.goto(f"{base}/console/providers/{cloud.cn1.uuid}/")
    page.click("#drain-button button")
    page.wait_for_url(f"{base}/console/drain/?provider={cloud.cn1.uuid}")
    verdict = page.inner_text("#verdict")
    # cn2 has 4 VCPU and 2768 MB free, cn3 everything: both instances fit, on cn3.
    assert "Fits: every one of the 2 consumers finds a place" in verdict
    placed = page.inner_text("#placed")
    assert "cn3-numa0" in placed and "cn1" in placed
    page.screenshot(path=str(SHOTS / "drain-host.png"), full_page=True)

    page.select_option("#pick-hosts", [])
    page.select_option("#pick-aggregate", str(cloud.rack.uuid))
    follow(page, "#simulate")
    verdict = page.inner_text("#verdict")
    # cn1 and cn2 out: cn3 (16 VCPU, 4 PCPU, 32 GiB) cannot take 18 VCPU and 42 GiB.
    assert "Does not fit" in verdict
    assert page.locator("#not-placed tbody tr").count() >= 1
    page.screenshot(path=str(SHOTS / "drain-aggregate.png"), full_page=True)

    follow(page, "nav >> text=Usage")
    forecast = page.inner_text("#forecast")
    assert "VCPU" in forecast and "MEMORY_MB" in forecast
    stranded = page.inner_text("#stranded")
    # cn1-numa0's PCPU is all pinned, but its free VCPU takes a shared-CPU
    # shape (no flavor is stored: the default shapes): nothing is stranded.
    assert "cn1-numa0" not in stranded and "every free amount fits some flavor" in stranded
    page.screenshot(path=str(SHOTS / "usage-forecast.png"), full_page=True)

    follow(page, "nav >> text=Failures")
    page.fill("input[name=global_request_id]", GLOBAL)
    follow(page, "#failures-form button")
    rows = page.locator("#failures tbody tr")
    assert rows.count() == 1 and GLOBAL in rows.nth(0).inner_text()
    assert "capacity" in page.inner_text("#by-reason") or "max_unit" in page.inner_text(
        "#by-reason")
    page.screenshot(path=str(SHOTS / "failures.png"), full_page=True)
    follow(page, rows.nth(0).locator("a"))
    assert "No candidates" in page.inner_text("#verdict")
    page.screenshot(path=str(SHOTS / "failure-detail.png"), full_page=True)
