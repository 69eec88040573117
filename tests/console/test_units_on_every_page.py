"""Every console page that shows an amount shows it in its unit (GiB, TiB,
Gbit/s) with the raw count on hover, through the one ``amount`` helper: the
provider list, the forest, the explain page, "Fullest providers", the
consumer and provider pages' allocations and the history."""
import uuid

import pytest

from allocations.services import allocations_set
from console.templatetags.console_tags import amount
from tests import factories as f

pytestmark = pytest.mark.django_db

CONSUMER = str(uuid.uuid4())


@pytest.fixture
def cloud():
    cn = f.ResourceProviderFactory(name="cn1")
    f.InventoryFactory(resource_provider=cn, resource_class=f.resource_class("MEMORY_MB"),
                       total=65536, max_unit=32768)
    nic = f.ResourceProviderFactory(name="cn1-nic", parent=cn)
    f.InventoryFactory(resource_provider=nic,
                       resource_class=f.resource_class("NET_BW_EGR_KILOBIT_PER_SEC"),
                       total=25_000_000)
    allocations_set(consumer_uuid=CONSUMER, project_id="p", user_id="u", allocations={
        cn.uuid: {"MEMORY_MB": 8192}, nic.uuid: {"NET_BW_EGR_KILOBIT_PER_SEC": 1_000_000}})
    return cn


def _section(html, marker):
    return html.split(marker, 1)[1].split("</table>", 1)[0]


USED = amount(8192, "MEMORY_MB")  # 8 GiB, "8,192 MEMORY_MB" on hover
CAPACITY = amount(65536, "MEMORY_MB")
BANDWIDTH = amount(1_000_000, "NET_BW_EGR_KILOBIT_PER_SEC")  # 1 Gbit/s


def test_the_helper_is_what_the_pages_use():
    assert USED == '<span class="amount" title="8,192 MEMORY_MB" data-sort="8192">8 GiB</span>'


def test_provider_list(staff, cloud):
    table = _section(staff.get("/console/providers/").content.decode(), 'id="providers"')
    assert f"{USED}/{CAPACITY}" in table
    assert BANDWIDTH in table


def test_forest(staff, cloud):
    html = staff.get("/console/forest/").content.decode()
    node_rows = _section(html, "<tbody>")
    assert f"{USED}/{CAPACITY}" in node_rows and BANDWIDTH in node_rows
    summary = html.split("<summary>", 1)[1].split("</summary>", 1)[0]
    assert f"{USED}/{CAPACITY}" in summary


def test_fullest_providers(staff, cloud):
    table = _section(staff.get("/console/").content.decode(), 'id="fullest"')
    assert f"{USED} / {CAPACITY}" in table


def test_explain_reasons_closest_and_candidates(staff, cloud):
    html = staff.get("/console/why/", {"q": "resources=MEMORY_MB:40960"}).content.decode()
    reason = (f"asked {amount(40960, 'MEMORY_MB')} MEMORY_MB &gt; "
              f"max_unit {amount(32768, 'MEMORY_MB')}")
    steps = html.split('class="grid steps"', 1)[1].split("</table>", 1)[0]
    assert reason in steps
    closest = html.split('class="closest"', 1)[1].split("</div>", 1)[0]
    assert reason in closest
    html = staff.get("/console/why/", {"q": "resources=MEMORY_MB:4096"}).content.decode()
    candidates = html.split('id="candidates"', 1)[1].split("</section>", 1)[0]
    assert amount(4096, "MEMORY_MB") in candidates


def test_capacity_reason_names_free_capacity_and_used_in_units(staff, cloud):
    html = staff.get("/console/why/", {"q": "resources=MEMORY_MB:32768,"
                                             "NET_BW_EGR_KILOBIT_PER_SEC:25000000"}).content.decode()
    free = amount(24_000_000, "NET_BW_EGR_KILOBIT_PER_SEC")
    assert (f"asked {amount(25_000_000, 'NET_BW_EGR_KILOBIT_PER_SEC')} "
            f"NET_BW_EGR_KILOBIT_PER_SEC &gt; free {free} (capacity "
            f"{amount(25_000_000, 'NET_BW_EGR_KILOBIT_PER_SEC')}, used {BANDWIDTH})") in html


def test_consumer_and_provider_pages_and_history(staff, cloud):
    html = staff.get(f"/console/consumers/{CONSUMER}/").content.decode()
    assert USED in _section(html, 'id="allocations"')
    history = _section(html, 'id="history"')
    assert f'{amount(0, "MEMORY_MB")}</td><td class="num">{USED}' in history
    html = staff.get(f"/console/providers/{cloud.uuid}/").content.decode()
    assert USED in _section(html, 'id="consumers"')
    assert USED in _section(html, 'id="history"')
