"""The console's drain page and the button on the provider page."""
import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(db):
    client = Client()
    client.force_login(get_user_model().objects.create_user("op", password="pw", is_staff=True))
    return client


@pytest.fixture
def cloud(world):
    agg = world.aggregate()
    a = world.provider("host-a", inventory={"VCPU": 8, "MEMORY_MB": 4096}, aggs=[agg])
    world.provider("host-b", inventory={"VCPU": 8, "MEMORY_MB": 4096})
    world.consumer({a: {"VCPU": 4, "MEMORY_MB": 2048}}, uuid="22222222-2222-4222-8222-222222222222")
    big = world.provider("host-big", inventory={"VCPU": 64, "MEMORY_MB": 4096})
    world.consumer({big: {"VCPU": 40}}, uuid="33333333-3333-4333-8333-333333333333")
    return {"a": a, "agg": agg, "big": big}


def test_provider_page_has_the_button(staff, cloud):
    page = staff.get(f"/console/providers/{cloud['a'].uuid}/").content.decode()
    assert 'id="drain-button"' in page and f'name="provider" value="{cloud["a"].uuid}"' in page


def test_picker_lists_hosts_and_aggregates(staff, cloud):
    page = staff.get("/console/drain/").content.decode()
    assert ">host-a</option>" in page and ">host-big</option>" in page
    assert f'<option value="{cloud["agg"].uuid}"' in page
    assert 'id="verdict"' not in page


def test_fits(staff, cloud):
    page = staff.get(f"/console/drain/?provider={cloud['a'].uuid}").content.decode()
    assert "Fits: every one of the 1 consumer finds a place" in page
    assert "22222222-2222-4222-8222-222222222222" in page
    # 2048 MiB shown in its unit; host-big chosen: it holds the most free share.
    assert ">host-big</a>: MEMORY_MB" in page and ">2 GiB</span>" in page


def test_does_not_fit_shows_why(staff, cloud):
    page = staff.get(f"/console/drain/?provider={cloud['big'].uuid}").content.decode()
    assert "Does not fit: 1 of 1 consumer find no place" in page
    assert 'id="not-placed"' in page and "max_unit" in page


def test_by_aggregate(staff, cloud):
    page = staff.get(f"/console/drain/?aggregate={cloud['agg'].uuid}").content.decode()
    assert "Fits" in page and 'id="drained"' in page and ">host-a</a>" in page


@pytest.mark.parametrize("query, words", [
    ("?provider=nope", "No resource provider with uuid or name &#x27;nope&#x27;."),
    ("?aggregate=x", "No aggregate &#x27;x&#x27;"),
    ("?required=X", "Pick at least one host or an aggregate"),
    ("?provider=host-a&required=CUSTOM_NOPE", "No such trait(s): CUSTOM_NOPE."),
])
def test_bad_input_shows_the_message(staff, cloud, query, words):
    r = staff.get(f"/console/drain/{query}")
    assert r.status_code == 200
    assert words in r.content.decode()


def test_staff_only(cloud):
    r = Client().get("/console/drain/")
    assert r.status_code == 302 and "/console/login/" in r["Location"]


def test_reason_amounts_in_their_unit(staff, world):
    src = world.provider("src", inventory={"MEMORY_MB": 65536})
    world.provider("dst", inventory={"MEMORY_MB": {"total": 4096, "max_unit": 65536}})
    world.consumer({src: {"MEMORY_MB": 8192}})
    page = staff.get("/console/drain/?provider=src").content.decode()
    assert "1 of 1 target tree: not enough free capacity (MEMORY_MB)" in page
    assert 'where this shape may land is <span class="amount" title="4,096 MEMORY_MB" ' \
           'data-sort="4096">4 GiB</span> on dst' in page


def test_aggregates_and_consumers_by_name_and_crumbs(staff, cloud):
    # Aggregates have no names: the picker names each by its members (as
    # the Usage page does); consumers appear by kind and short uuid, links.
    page = staff.get(f"/console/drain/?provider={cloud['a'].uuid}").content.decode()
    agg = str(cloud["agg"].uuid)
    assert f'<option value="{agg}">host-a ({agg[:8]})</option>' in page
    assert f">{agg}</option>" not in page
    placed = page.split('id="placed"', 1)[1].split("</table>", 1)[0]
    assert 'href="/console/consumers/22222222-2222-4222-8222-222222222222/"' in placed
    assert ">22222222-2222-4222-8222-222222222222<" not in placed
    assert 'class="crumbs"' in page and "› Drain what-if" in page
