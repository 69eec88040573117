"""Amounts in the unit an operator reads, the raw count on hover."""
import pytest

from console.templatetags.console_tags import amount, human_amount


@pytest.mark.parametrize("value,rc,text", [
    (512, "MEMORY_MB", "512 MiB"), (8192, "MEMORY_MB", "8 GiB"), (63488, "MEMORY_MB", "62 GiB"),
    (1536, "MEMORY_MB", "1.5 GiB"), (2 * 1024 * 1024, "MEMORY_MB", "2 TiB"),
    (80, "DISK_GB", "80 GiB"), (20000, "DISK_GB", "19.5 TiB"),
    (25_000_000, "NET_BW_EGR_KILOBIT_PER_SEC", "25 Gbit/s"),
    (1_500, "NET_BW_IGR_KILOBIT_PER_SEC", "1.5 Mbit/s"),
    (16, "VCPU", "16"), (0, "MEMORY_MB", "0 MiB"),
])
def test_human_amount(value, rc, text):
    assert human_amount(value, rc) == text


def test_raw_value_on_hover():
    html = amount(8192, "MEMORY_MB")
    assert html == '<span class="amount" title="8,192 MEMORY_MB" data-sort="8192">8 GiB</span>'
