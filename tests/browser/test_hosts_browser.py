"""Per-host answers in a real browser (make test-browser), on the demo
cloud (`manage.py demo_cloud`), with screenshots: "Has capacity for" lists
hosts as GET /allocation_candidates finds them, a host's page shows its
whole tree's consumers, and the drain what-if treats the move in flight as
one thing, says "no target" once, and narrows its host list as you type."""
import pytest

from tests.browser.conftest import SHOTS
from tests.browser.login import follow, login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo(transactional_db):
    from django.contrib.auth import get_user_model

    from tests.commands.helpers import run

    assert run("demo_cloud")[0] == 0
    get_user_model().objects.create_user("operator", password="s3cret-pw", is_staff=True)



def _hosts_by_api(resources):
    from tests.console.hosts_cloud import candidate_roots
    from tests.support.api import PlacementClient

    from providers.models import ResourceProvider

    roots = candidate_roots(PlacementClient(), resources)
    return sorted(ResourceProvider.objects.filter(uuid__in=roots).values_list("name", flat=True))


def test_hosts_with_capacity_and_a_hosts_tree(browser, live_server, demo):
    SHOTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    base = live_server.url
    login(page, base)
    page.goto(f"{base}/console/providers/")
    page.fill("input[name=resources]", "VCPU:2,MEMORY_MB:512")
    follow(page, "form.filters button[type=submit]")
    expected = _hosts_by_api("VCPU:2,MEMORY_MB:512")
    assert len(expected) >= 3
    assert page.inner_text("#provider-count") == f"{len(expected)} hosts"
    names = page.locator("#providers tbody tr td:first-child a").all_inner_texts()
    assert sorted(names) == expected
    page.screenshot(path=str(SHOTS / "providers-has-capacity-for.png"), full_page=True)

    follow(page, page.locator("#providers a", has_text="compute-01").first)
    consumers = page.inner_text("#consumers")
    assert "on compute-01-numa0" in consumers and "on compute-01-nic0" in consumers
    assert "MIGRATION" in consumers
    history = page.inner_text("#history")
    assert "compute-01-numa" in history
    page.screenshot(path=str(SHOTS / "host-tree-consumers.png"), full_page=True)
    # The page's top down to its consumers (the history below runs long).
    bottom = page.locator("#csv-consumers").bounding_box()
    page.screenshot(path=str(SHOTS / "host-tree-consumers-top.png"), full_page=True,
                    clip={"x": 0, "y": 0, "width": 1400, "height": bottom["y"] + 30})


def test_drain_a_host_with_a_move_in_flight(browser, live_server, demo):
    SHOTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    base = live_server.url
    login(page, base)
    page.goto(f"{base}/console/drain/")
    options = page.locator("#pick-hosts option")
    total = options.count()
    page.fill("#host-filter", "02")
    shown = page.inner_text("#hosts-shown")
    assert shown == f"1 of {total} hosts"
    page.fill("#host-filter", "compute-01")
    page.select_option("#pick-hosts", label="compute-01")
    page.screenshot(path=str(SHOTS / "drain-picker-filtered.png"), full_page=False)
    follow(page, "#simulate")
    verdict = page.inner_text("#verdict")
    assert "1 move in flight leaves with its instance" in verdict
    in_flight = page.inner_text("#in-flight")
    assert "MIGRATION" in in_flight and "compute-02" in in_flight
    assert "migration" not in page.inner_text("#placed")
    page.screenshot(path=str(SHOTS / "drain-move-in-flight.png"), full_page=True)

    # compute-04 is disabled: with 01 to 03 drained no tree receives anything.
    page.goto(f"{base}/console/drain/?provider=compute-01&provider=compute-02"
              "&provider=compute-03")
    verdict = page.inner_text("#verdict")
    refused = int(verdict.split("Does not fit: ")[1].split()[0])
    rows = page.locator("#not-placed tbody tr")
    assert rows.count() == 1
    text = rows.nth(0).inner_text()
    assert text.count("no tree can receive anything") == 1 and f"{refused} consumers" in text
    page.screenshot(path=str(SHOTS / "drain-grouped-reasons.png"), full_page=True)
