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
    labels = re.findall(r'text-anchor="end">([^<]+)</text>', memory)
    assert labels[:4] == ["0 GiB", "100 GiB", "200 GiB", "300 GiB"]
    assert memory.count('class="grid"') == 4
    assert "used 111 GiB of 256 GiB" in memory  # the last sample: 64 GiB + 47 GiB
    hover = re.findall(r'<circle class="sample"[^>]*><title>([^<]+)</title>', memory)
    assert len(hover) == 48
    assert hover[0].endswith("used 64 GiB of 256 GiB (25.0%)")
    bandwidth = _chart(html, "NET_BW_EGR_KILOBIT_PER_SEC")
    assert "10 Gbit/s" in bandwidth and "used 2.5 Gbit/s of 40 Gbit/s" in bandwidth
    vcpu = _chart(html, "VCPU")
    assert "used 5,047 of 12,800" in vcpu and ">5,000 </text>" in vcpu


def test_min_max_step_in_units_on_the_provider_page(staff):
    from tests import factories as f

    rp = f.ResourceProviderFactory(name="big")
    f.InventoryFactory(resource_provider=rp, resource_class=f.resource_class("MEMORY_MB"),
                       total=524288, min_unit=512, max_unit=262144, step_size=256)
    html = staff.get(f"/console/providers/{rp.uuid}/").content.decode()
    row = html.split('id="capacity"', 1)[1].split("</table>", 1)[0]
    assert ">512 MiB</span> / <span" in row and ">256 GiB</span> / <span" in row
    assert ">256 MiB</span></td>" in row
