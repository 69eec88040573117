from urllib.parse import quote

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils.html import strip_tags

from tests.console.populate import populate, record_failures

pytestmark = pytest.mark.django_db


@pytest.fixture
def data():
    return populate(100)  # 100 nodes + 100 children + 10 sharing providers


def test_pages_need_a_staff_login(db):
    client = Client()
    for url in ("/console/", "/console/providers/", "/console/consumers/", "/console/why/"):
        resp = client.get(url)
        assert resp.status_code == 302 and resp.url.startswith("/console/login/")
    get_user_model().objects.create_user("plain", password="pw", is_staff=False)
    client.login(username="plain", password="pw")
    assert client.get("/console/").status_code == 302


def test_login_form(db):
    get_user_model().objects.create_user("op", password="pw", is_staff=True)
    client = Client()
    assert b"Log in" in client.get("/console/login/").content
    resp = client.post("/console/login/", {"username": "op", "password": "pw", "next": "/console/"})
    assert resp.status_code == 302 and resp.url == "/console/"
    assert client.get("/console/").status_code == 200
    assert client.post("/console/logout/").status_code == 302
    assert client.get("/console/").status_code == 302


def test_assets_served_locally(staff):
    resp = staff.get("/console/assets/console.css")
    assert resp.status_code == 200 and b"--used" in b"".join(resp.streaming_content)
    page = staff.get("/console/").content.decode()
    assert "http://" not in page and "https://" not in page  # no CDN


def test_overview(staff, data, django_assert_max_num_queries):
    # constant: 2 auth + 14 aggregate reads (one counts the disabled hosts)
    with django_assert_max_num_queries(16):
        resp = staff.get("/console/")
    html = resp.content.decode()
    assert resp.status_code == 200
    assert "<b>210</b> providers (110 roots)" in html
    assert "<b>100</b> consumers" in html and "<b>300</b> allocations" in html
    # VCPU: 100 x 32 total, ratio 4 -> capacity 12800; used sum of 4 + (i%8)*14
    used = sum(4 + (i % 8) * 14 for i in range(100))
    assert (f'data-sort="12800">12,800</span></td><td class="num">'
            f'<span class="amount" title="{used:,} VCPU" data-sort="{used}">{used:,}</span>') in html
    assert "cn0007" in html  # fullest (used 102 of 128)
    assert html.count("<svg class=\"bar\"") >= 3


def test_provider_list_filters_and_paginates(staff, data, django_assert_max_num_queries):
    with django_assert_max_num_queries(10):
        resp = staff.get("/console/providers/")
    html = resp.content.decode()
    assert "210 providers" in html and "page 1 of 5" in html
    assert staff.get("/console/providers/?page=5").status_code == 200
    assert "1 provider" in staff.get("/console/providers/?q=cn0042-numa").content.decode()
    child = data["children"][3]
    assert child.name in staff.get(f"/console/providers/?q={child.uuid}").content.decode()
    html = staff.get("/console/providers/?trait=HW_CPU_X86_AVX").content.decode()
    assert "50 providers" in html
    agg = data["aggregates"][0]
    html = staff.get(f"/console/providers/?aggregate={agg.uuid}").content.decode()
    assert "11 providers" in html  # 10 roots + 1 disk
    # capacity 128 VCPU on each node's NUMA cell; used 4 + (i%8)*14: free
    # < 30 only where i%8 == 7 (used 102): the other 88 hosts (roots) can take it.
    # the engine's fixed statements besides the list's own
    with django_assert_max_num_queries(16):
        html = staff.get("/console/providers/?resources=VCPU:30").content.decode()
    assert '88 hosts</span> can take' in html
    assert "0 hosts" in staff.get("/console/providers/?resources=VCPU:33").content.decode()
    html = staff.get("/console/providers/?resources=VCPU").content.decode()
    assert "Badly formed resources parameter" in html


def test_provider_list_form_shows_every_filter_of_the_url(staff, data):
    # The API's parameters filter the list too: the form must show them, or
    # the page lists fewer providers than its form says it was asked for.
    root = data["roots"][0]
    agg = data["aggregates"][0]
    html = staff.get("/console/providers/", {
        "in_tree": root.uuid, "member_of": agg.uuid, "required": "HW_CPU_X86_AVX",
        "name": root.name}).content.decode()
    form = html.split('class="filters"')[1].split("</form>")[0]
    assert f'name="in_tree" value="{root.uuid}"' in form
    assert f'name="member_of" value="{agg.uuid}"' in form
    assert 'name="required" value="HW_CPU_X86_AVX"' in form
    assert f'name="name" value="{root.name}"' in form
    plain = staff.get("/console/providers/").content.decode()
    assert 'name="in_tree"' not in plain.split('class="filters"')[1].split("</form>")[0]


def test_provider_detail(staff, data, django_assert_max_num_queries):
    root = data["roots"][0]
    # 15: a root's page also sums its whole tree (2 queries, whatever its
    # size) and names its aggregates by their members (1).
    with django_assert_max_num_queries(16):
        resp = staff.get(f"/console/providers/{root.uuid}/")
    html = resp.content.decode()
    assert resp.status_code == 200
    assert "cn0000-numa0" in html and "(this provider)" in html
    assert "disk000" in html  # sharing provider via the aggregate
    assert data["aggregates"][0].uuid in html
    child = data["children"][0]
    # 13: a child's page also asks whether its root is disabled (1 query).
    with django_assert_max_num_queries(13):
        html = staff.get(f"/console/providers/{child.uuid}/").content.decode()
    assert "HW_CPU_X86_AVX" in html and "VCPU" in html and "MEMORY_MB" in html
    assert data["consumers"][0].uuid in html
    # (65536 - 2048) * 1.0 MiB, shown as 62 GiB with the raw count on hover.
    assert 'title="63,488 MEMORY_MB" data-sort="63488">62 GiB</span>' in html
    disk = data["shared"][0]
    # 14: a sharing provider's page also lists the trees it serves (1 query),
    # and names its aggregate by its members (1).
    with django_assert_max_num_queries(14):
        html = staff.get(f"/console/providers/{disk.uuid}/").content.decode()
    assert html.count("/console/consumers/") >= 10
    assert staff.get("/console/providers/nope/").status_code == 404


def test_consumers(staff, data, django_assert_max_num_queries):
    with django_assert_max_num_queries(8):
        html = staff.get("/console/consumers/").content.decode()
    assert "100 consumers" in html
    c = data["consumers"][5]
    with django_assert_max_num_queries(8):
        html = staff.get(f"/console/consumers/{c.uuid}/").content.decode()
    assert "proj-1" in html and "INSTANCE" in html and "cn0005-numa0" in html and "DISK_GB" in html
    assert "1 consumer" in staff.get(f"/console/consumers/?q={c.uuid[:13]}").content.decode()
    assert staff.get("/console/consumers/nope/").status_code == 404


def test_why_no_candidates(staff, data, django_assert_max_num_queries):
    agg = data["aggregates"][1]
    q = (f"resources=VCPU:100,MEMORY_MB:1024&required=HW_CPU_X86_AVX,!HW_CPU_X86_SSE"
         f"&member_of={agg.uuid}")
    with django_assert_max_num_queries(20):
        resp = staff.get("/console/why/", {"q": q})
    html = resp.content.decode()
    assert resp.status_code == 200
    text = strip_tags(html)  # amounts are spans with the raw count on hover
    assert "has no VCPU inventory" in text and "asked 100 VCPU &gt; max_unit" in text
    assert "is in none of the aggregates" in html
    assert "No candidates: no tree can meet the unsuffixed group" in html

    q = "resources1=VCPU:1000&resources2=DISK_GB:10&required2=HW_CPU_X86_AVX2"
    html = staff.get("/console/why/", {"q": q}).content.decode()
    assert "Request group 1" in html and "lacks trait HW_CPU_X86_AVX2" in html
    html = staff.get("/console/why/", {"q": q.replace("AVX2", "NOPE")}).content.decode()
    assert "No such trait(s): HW_CPU_X86_NOPE" in html  # as the API would answer

    html = staff.get("/console/why/", {"q": "required=FOO"}).content.decode()
    # The console reads queries with the API's own grammar, so it refuses
    # them with the API's words.
    assert "There must be at least one resources or resources[$S] parameter." in html
    html = staff.get("/console/why/", {"q": "resources=VCPU:x"}).content.decode()
    assert "Requested resource VCPU expected positive integer amount. Got: x." in html


def test_why_multi_class_group_is_not_met_by_providers_each_lacking_a_class(staff, db):
    # The old page said such providers "satisfy this group on their own".
    from tests.support.world import World

    w = World()
    w.provider("cpu-only", inventory={"VCPU": 8})
    w.provider("ram-only", inventory={"MEMORY_MB": 4096})
    html = staff.get("/console/why/", {"q": "resources=VCPU:2,MEMORY_MB:1024"}).content.decode()
    assert "satisfy this group on their own" not in html
    assert "can give MEMORY_MB" in html and "can give VCPU" in html
    assert "No allocation candidates." in html


def thousand_provider_pages(d, failure):
    """Every console page, on a populated cloud (shared with make bench):
    {url: the most SQL queries it may take}. ``failure``: a recorded
    scheduling failure's (pk, global request id), from record_failures."""
    root, agg, consumer = d["roots"][9], d["aggregates"][0], d["consumers"][0]
    logged = quote(
        "GET call to placement for http://controller:8778/placement/allocation_candidates?"
        "limit=1000&resources=DISK_GB%3A20%2CMEMORY_MB%3A70000%2CVCPU%3A2"
        "&root_required=%21COMPUTE_STATUS_DISABLED used request id req-1", safe="")
    # Nova's query for a small flavor: the limit removes candidates.
    fits = quote("limit=1000&resources=DISK_GB:20,MEMORY_MB:2048,VCPU:2"
                 "&root_required=!COMPUTE_STATUS_DISABLED", safe="")
    pages = {
        "/console/": 17,
        "/console/providers/": 17,
        "/console/providers/?trait=HW_CPU_X86_AVX": 17,
        "/console/providers/?resources=VCPU:50": 17,
        f"/console/providers/?aggregate={agg.uuid}": 17,
        f"/console/providers/{d['shared'][0].uuid}/": 17,
        f"/console/providers/{root.uuid}/": 17,
        "/console/consumers/": 17,
        "/console/consumers/?type=INSTANCE&q=proj-1": 17,
        f"/console/consumers/{consumer.uuid}/": 17,
        "/console/why/": 17,
        "/console/why/?q=resources%3DVCPU%3A100%26required%3DHW_CPU_X86_AVX": 17,
        # An explanation of a query with a limit (as Nova sends it) runs the
        # engine's search over every tree: a few statements per page of roots.
        f"/console/why/?q={logged}": 40,
        f"/console/why/?q={fits}": 40,
        "/console/forest/": 17,
        "/console/forest/?q=cn0001": 17,
        "/console/usage/": 17,
        f"/console/usage/?aggregate={agg.uuid}&days=14": 17,
        "/console/flavors/": 17,
        "/console/providers/?sort=full": 17,
        "/console/providers/?sort=full&class=VCPU&page=3": 17,
        "/console/providers/?full=75": 17,
        "/console/full/": 17,
        "/console/full/?above=50&class=VCPU": 17,
        # Also every provider's parent and root, for the cycle and stray-root check.
        "/console/audit/": 18,
        "/console/audit/?confirm=consumers_without_allocations": 18,
        "/console/drain/": 17,
        f"/console/drain/?provider={root.uuid}": 17,
        f"/console/drain/?aggregate={agg.uuid}": 17,
        "/console/failures/": 17,
        f"/console/failures/?global_request_id={failure[1]}": 17,
        f"/console/failures/{failure[0]}/": 17,
        # Downloads: every row, streamed.
        "/console/?format=csv&table=totals": 17,
        "/console/?format=csv&table=headroom": 17,
        "/console/?format=csv&table=fullest": 17,
        "/console/providers/?format=csv": 17,
        "/console/providers/?sort=full&format=csv": 17,
        f"/console/providers/{d['shared'][0].uuid}/?format=csv&table=consumers": 17,
        f"/console/providers/{d['children'][9].uuid}/?format=csv&table=history": 17,
        "/console/consumers/?format=csv": 17,
        "/console/consumers/?format=csv&table=projects": 17,
        f"/console/consumers/{consumer.uuid}/?format=csv&table=allocations": 17,
        "/console/forest/?format=csv": 17,
        "/console/full/?format=csv": 17,
        "/console/usage/?format=csv": 17,
        "/console/flavors/?format=csv": 17,
    }
    return pages


def fetch(client, url):
    """A page's status and body, a streamed download read to its end."""
    response = client.get(url)
    if response.streaming:
        return response.status_code, b"".join(response.streaming_content)
    return response.status_code, response.content


def test_thousand_providers_pages_render_with_bounded_queries(
    staff, db, django_assert_max_num_queries
):
    # 500 nodes + 500 children + 50 sharing = 1050 providers. Render time
    # is measured by `make bench` (benchmarks/console_pages.py), not here.
    d = populate(500)
    failure = record_failures(4)
    for url, bound in thousand_provider_pages(d, failure).items():
        with django_assert_max_num_queries(bound, info=url):
            status, _ = fetch(staff, url)
            assert status == 200, url


def test_why_shows_engine_candidates(staff, data):
    html = staff.get("/console/why/", {"q": "resources=VCPU:2"}).content.decode()
    assert "Candidates from the API engine" in html
    assert "cn0000-numa0 (VCPU 2)" in strip_tags(html)
    assert "allocation request(s) found." in html
    html = staff.get("/console/why/", {"q": "resources=VCPU:64"}).content.decode()
    assert "No allocation candidates." in html
