""""Why no candidates?" reads what Nova logged: a query string, a path, a
URL or a whole log line; a bad paste gets a plain sentence, not a JSON
Schema; the operator's flavors are offered as a start; identical reasons
fold into one line with a count."""
import re
from urllib.parse import quote

import pytest
from django.utils.html import strip_tags

from console.paste import NoQuery, query_of
from tests.support.world import World

pytestmark = pytest.mark.django_db

QUERY = "limit=1000&resources=DISK_GB%3A1%2CMEMORY_MB%3A512%2CVCPU%3A1" \
        "&root_required=%21COMPUTE_STATUS_DISABLED"
REQ = "req-2a6f7b3e-9c1d-4e55-8f0a-1b2c3d4e5f60"


@pytest.mark.parametrize("pasted", [
    QUERY,
    "?" + QUERY,
    "/allocation_candidates?" + QUERY,
    "http://controller:8778/placement/allocation_candidates?" + QUERY,
    # nova-scheduler's report client at DEBUG
    f"2026-11-24 10:01:02.345 1234 DEBUG nova.scheduler.client.report [{REQ} admin admin] "
    f"GET call to placement for http://controller:8778/placement/allocation_candidates?{QUERY}"
    f" used request id {REQ} request /usr/lib/python3/dist-packages/keystoneauth1/session.py:959",
    # keystoneauth's curl line, the URL quoted
    f'REQ: curl -g -i -X GET "http://controller:8778/placement/allocation_candidates?{QUERY}" '
    f'-H "Accept: application/json" -H "OpenStack-API-Version: placement 1.36"',
    # a log viewer that escaped the ampersands
    "GET /placement/allocation_candidates?" + QUERY.replace("&", "&amp;") + " HTTP/1.1",
])
def test_the_query_is_found_in_what_was_pasted(pasted):
    assert query_of(pasted) == QUERY


@pytest.mark.parametrize("pasted", [
    "Got no allocation candidates from the Placement API: GET /allocation_candidates returned",
    "http://controller:8778/placement/allocation_candidates",
    "https://controller/placement/resource_providers",
])
def test_a_line_without_a_query_says_so(pasted):
    with pytest.raises(NoQuery):
        query_of(pasted)


@pytest.fixture
def cloud():
    w = World()
    for i in range(13):
        w.provider(f"cpu-only-{i:02d}", inventory={"VCPU": 8, "DISK_GB": 100})
    w.provider("small", inventory={"VCPU": 8, "MEMORY_MB": 256, "DISK_GB": 100})
    w.provider("fits", inventory={"VCPU": 8, "MEMORY_MB": 8192, "DISK_GB": 100})
    return w


def _explained(staff, pasted):
    return staff.get("/console/why/", {"q": pasted}).content.decode()


def test_a_logged_line_explains_like_the_bare_query(staff, cloud):
    bare = _explained(staff, QUERY)
    line = (f"DEBUG nova.scheduler.client.report [{REQ}] GET call to placement for "
            f"http://controller:8778/placement/allocation_candidates?{QUERY} used request id {REQ}")
    logged = _explained(staff, line)
    section = lambda html: html.split('id="verdict"', 1)[1]  # noqa: E731
    assert section(logged) == section(bare)
    assert "1 allocation request(s) found." in strip_tags(logged)
    assert "Read from what you pasted:" in logged and 'id="problem"' not in logged


@pytest.mark.parametrize("pasted,sentence", [
    ("hello world", "&#x27;hello world&#x27; is not a parameter of GET /allocation_candidates"),
    ("/allocation_candidates?resources=VCPU:1&flavor=m1.small",
     "&#x27;flavor&#x27; is not a parameter"),
    ("resources=VCPU:1&limit=0", "limit must be a whole number of at least 1, not &#x27;0&#x27;"),
    ("resources=VCPU:1&group_policy=any", "group_policy must be none or isolate"),
    ("http://controller/placement/allocation_candidates", "no query after it"),
    ("resources=VCPU:x", "Requested resource VCPU expected positive integer amount. Got: x."),
])
def test_a_bad_paste_gets_a_plain_sentence_not_a_schema(staff, cloud, pasted, sentence):
    resp = staff.get("/console/why/", {"q": pasted})
    assert resp.status_code == 200
    html = resp.content.decode()
    problem = html.split('id="problem"', 1)[1].split("</div>", 1)[0]
    assert sentence in problem
    for schema_words in ("regexes", "Failed validating", "^resources", "patternProperties",
                         "additionalProperties", "{1,64}"):
        assert schema_words not in html


def test_flavors_offered_as_a_starting_point(staff, cloud, settings):
    from placement_core.querystring import parse_flavors
    from planning import flavor_services

    settings.PLACEMENT_FLAVORS = parse_flavors("m1.small=VCPU:1,MEMORY_MB:512,DISK_GB:1")
    flavor_services.flavor_create(name="big", resources="VCPU:2,MEMORY_MB:16384")
    html = staff.get("/console/why/").content.decode()
    offered = html.split('id="flavors"', 1)[1].split("</p>", 1)[0]
    links = dict((name, href) for href, name in re.findall(r'<a href="\?q=([^"]+)">([^<]+)</a>',
                                                           offered))
    assert set(links) == {"m1.small", "big"}
    assert links["m1.small"] == quote(
        "resources=VCPU:1,MEMORY_MB:512,DISK_GB:1&root_required=!COMPUTE_STATUS_DISABLED", safe="")
    html = staff.get(f"/console/why/?q={links['big']}").content.decode()
    assert "No candidates" in html and "fits" in html  # the closest: 8 GiB of 16 asked


def test_identical_reasons_fold_into_one_line_with_a_count(staff, cloud):
    html = _explained(staff, "resources=VCPU:1,MEMORY_MB:512")
    group = html.split('id="group-unsuffixed"', 1)[1].split("</section>", 1)[0]
    folds = re.findall(r'<details class="fold"><summary>(.*?)</summary>(.*?)</details>', group,
                       re.S)
    # The providers without memory inventory, counted another way.
    from providers.models import ResourceProvider

    lacking = set(ResourceProvider.objects.exclude(
        inventories__resource_class__name="MEMORY_MB").values_list("name", flat=True))
    assert len(lacking) == 13
    (summary, names), = [f for f in folds if "MEMORY_MB" in f[0] and "providers</b>" in f[0]]
    assert strip_tags(summary) == "13 providers: has no MEMORY_MB inventory"
    assert set(re.findall(r">([^<]+)</a>", names)) == lacking
    # A reason only one provider has stays on its own line with its numbers.
    assert "small</a>: asked <span" in group
