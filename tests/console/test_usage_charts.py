"""The Usage page's charts: the value axis in the class's unit with a
gridline per round step, the width of the page, each sample's values on
hover."""
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from console.charts import nice_step
from operations.models import UsageSnapshot

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("top,step", [(10, 2.5), (100, 25), (96, 25), (7, 2), (1, 0.25),
                                      (1300, 500), (0, 1.0)])
def test_nice_step(top, step):
    assert nice_step(top) == step


@pytest.fixture
def snapshots():
    now = timezone.now()
    rows = []
    for hour in range(48):
        at = now - timedelta(hours=47 - hour)
        rows += [UsageSnapshot(taken_at=at, resource_class="MEMORY_MB", capacity=262144,
                               used=65536 + hour * 1024),
                 UsageSnapshot(taken_at=at, resource_class="NET_BW_EGR_KILOBIT_PER_SEC",
                               capacity=40_000_000, used=2_500_000),
                 UsageSnapshot(taken_at=at, resource_class="VCPU", capacity=12_800,
                               used=5_000 + hour)]
    UsageSnapshot.objects.bulk_create(rows)


def _chart(html, resource_class):
    return next(svg for svg in re.findall(r"<svg.*?</svg>", html, re.S)
                if f"<title>{resource_class}</title>" in svg)


def test_charts_read_in_units_with_gridlines_and_values_on_hover(staff, snapshots):
    html = staff.get("/console/usage/", {"days": 3}).content.decode()
    memory = _chart(html, "MEMORY_MB")
    assert 'width="100%"' in memory and "viewBox" in memory
    # 256 GiB capacity: gridlines every 100 GiB (nice step of 256/4=64 is 100) up to 300.
    # Used 64 to 111 GiB (capacity 256 GiB, off the scale): a quarter of the
    # 47 GiB span is 11.75, the round step 20 GiB, from 60 to 120 GiB.
    labels = re.findall(r'class="ylabel"[^>]*>([^<]+)</text>', memory)
    assert labels == ["60 GiB", "80 GiB", "100 GiB", "120 GiB"]
    assert memory.count('class="grid"') == 4
    assert "used 111 GiB of 256 GiB" in memory  # the last sample: 64 GiB + 47 GiB
    hover = re.findall(r'<circle class="sample"[^>]*><title>([^<]+)</title>', memory)
    assert len(hover) == 48
    assert hover[0].endswith("used 64 GiB of 256 GiB (25.0%)")
    bandwidth = _chart(html, "NET_BW_EGR_KILOBIT_PER_SEC")
    # Flat at 2.5 Gbit/s: a band a fifth of it wide around it, 2.25 to 2.75,
    # in steps of 0.2 (a quarter of 0.5 rounded up).
    assert re.findall(r'class="ylabel"[^>]*>([^<]+)</text>', bandwidth) == [
        "2.2 Gbit/s", "2.4 Gbit/s", "2.6 Gbit/s", "2.8 Gbit/s"]
    assert "used 2.5 Gbit/s of 40 Gbit/s" in bandwidth
    vcpu = _chart(html, "VCPU")
    assert "used 5,047 of 12,800" in vcpu and ">5,000</text>" in vcpu


def test_min_max_step_in_units_on_the_provider_page(staff):
    from tests import factories as f

    rp = f.ResourceProviderFactory(name="big")
    f.InventoryFactory(resource_provider=rp, resource_class=f.resource_class("MEMORY_MB"),
                       total=524288, min_unit=512, max_unit=262144, step_size=256)
    html = staff.get(f"/console/providers/{rp.uuid}/").content.decode()
    row = html.split('id="capacity"', 1)[1].split("</table>", 1)[0]
    assert ">512 MiB</span> / <span" in row and ">256 GiB</span> / <span" in row
    assert ">256 MiB</span></td>" in row


# -- Scaled to the data, days labelled, the forecast's window (issue 38) ---------

GIB = 1024
TOP, HEIGHT, BOTTOM = 28, 240, 30  # the chart's margins (console/charts.py)
INNER = HEIGHT - TOP - BOTTOM


@pytest.fixture
def fortnight():
    """Every 6 hours for 20 days: memory from 12 GiB to 40 GiB of 256 GiB
    (5 % to 16 %), VCPU from 70 to 90 of 100."""
    now = timezone.now()
    rows = []
    count = 20 * 4
    for i in range(count + 1):
        at = now - timedelta(hours=6 * (count - i))
        rows += [UsageSnapshot(taken_at=at, resource_class="MEMORY_MB", capacity=256 * GIB,
                               used=round((12 + 28 * i / count) * GIB)),
                 UsageSnapshot(taken_at=at, resource_class="VCPU", capacity=100,
                               used=70 + round(20 * i / count))]
    UsageSnapshot.objects.bulk_create(rows)
    return now


def _ys(svg, css):
    points = re.search(rf'<polyline class="{css}"[^>]*points="([^"]+)"', svg)
    return [float(p.split(",")[1]) for p in points[1].split()] if points else None


def test_the_value_axis_follows_the_data(staff, fortnight):
    html = staff.get("/console/usage/", {"days": 21}).content.decode()
    memory = _chart(html, "MEMORY_MB")
    # By hand: used spans 12 to 40 GiB, 28 GiB: a quarter is 7, the round
    # step 10 GiB; the axis runs 10 to 40 GiB.
    labels = re.findall(r'class="ylabel"[^>]*>([^<]+)</text>', memory)
    assert labels == ["10 GiB", "20 GiB", "30 GiB", "40 GiB"]
    ys = _ys(memory, "used")
    # 12 GiB is 2/30 up from the bottom, 40 GiB the top: the line climbs
    # (40 - 12) / 30 of the plot's height, not 28/300 of it.
    assert max(ys) - min(ys) == pytest.approx(INNER * 28 / 30, abs=0.2)
    assert max(ys) == pytest.approx(TOP + INNER * (1 - 2 / 30), abs=0.1)
    # 256 GiB is far above: no capacity line, a label saying where it is.
    assert _ys(memory, "capacity") is None
    assert "capacity 256 GiB (above the scale)" in memory
    # VCPU 70 to 90 of 100: capacity is no further above than the used
    # amounts span (20), so it is drawn as the reference: the axis covers
    # 70 to 100, a quarter of 30 rounded up to 10.
    vcpu = _chart(html, "VCPU")
    assert re.findall(r'class="ylabel"[^>]*>([^<]+)</text>', vcpu) == ["70", "80", "90", "100"]
    assert set(_ys(vcpu, "capacity")) == {TOP}


def test_days_are_labelled_and_the_window_is_the_forecasts(staff, fortnight, settings):
    settings.PLACEMENT_FORECAST_WINDOW_DAYS = 10
    html = staff.get("/console/usage/").content.decode()
    assert re.search(r'name="days"[^>]*value="10"', html)
    memory = _chart(html, "MEMORY_MB")
    hover = re.findall(r'<circle class="sample"[^>]*><title>([^<]+)</title>', memory)
    # Every 6 hours over the last 10 days: the one taken exactly 10 days
    # before the fixture's "now" is older than the page's window.
    assert len(hover) == 10 * 4
    # One label a day: each UTC midnight between the first sample and the last.
    first = fortnight - timedelta(days=10) + timedelta(hours=6)
    midnights = []
    day = first.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)
    while day <= fortnight:
        midnights.append(day.strftime("%b %d"))
        day += timedelta(days=1)
    assert re.findall(r'class="xlabel"[^>]*>([^<]+)</text>', memory) == midnights
    # The first sample is 6 hours later in the day than "now": from 18:00
    # UTC on it falls after the next midnight, and the window holds one
    # label fewer (the fixture's "now" is the clock's).
    assert len(midnights) == (10 if fortnight.hour < 18 else 9)


def test_time_ticks_over_short_and_long_periods():
    from datetime import datetime, timezone as tz

    from console.charts import time_ticks

    start = datetime(2026, 11, 1, 9, 30, tzinfo=tz.utc)
    # 12 hours: every hour from 10:00 to 21:00 (12 labels, none past 21:30).
    ticks = time_ticks(start, start + timedelta(hours=12))
    assert [label for _, label in ticks] == [f"{h:02d}:00" for h in range(10, 22)]
    # 30 hours: every 3 hours, midnight named by its day.
    labels = [label for _, label in time_ticks(start, start + timedelta(hours=30))]
    assert labels == ["12:00", "15:00", "18:00", "21:00", "Nov 02", "03:00", "06:00", "09:00",
                      "12:00", "15:00"]
    # 40 days: 40 midnights, every third labelled (40 / 14 rounded up).
    labels = [label for _, label in time_ticks(start, start + timedelta(days=40))]
    assert labels[:3] == ["Nov 02", "Nov 05", "Nov 08"] and len(labels) == 14
