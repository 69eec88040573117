"""Finding one's way: breadcrumbs, the current page marked in the
navigation, the navigation kept on error pages, the API docs linked."""
import re

import pytest
from django.test import Client, RequestFactory

from tests import factories as f

pytestmark = pytest.mark.django_db

PAGES = {
    "/console/": "Overview",
    "/console/providers/": "Providers",
    "/console/full/": "Full hosts",
    "/console/forest/": "Forest",
    "/console/consumers/": "Consumers",
    "/console/why/": "Why no candidates?",
    "/console/usage/": "Usage",
    "/console/audit/": "Audit",
    "/console/flavors/": "Flavors",
}


def _current(html):
    return re.findall(r'<a href="[^"]+" aria-current="page">([^<]+)</a>', html)


@pytest.mark.parametrize("url,name", PAGES.items())
def test_each_page_marks_itself_and_links_the_api_docs(staff, url, name):
    html = staff.get(url).content.decode()
    assert _current(html) == [name]
    assert '<a href="/api/docs/">API docs</a>' in html
    crumbs = html.split('<nav class="crumbs"', 1)[1].split("</nav>", 1)[0]
    if url == "/console/":
        assert re.sub(r"<[^>]+>", "", crumbs).strip().endswith("Overview")
    else:
        assert '<a href="/console/">Overview</a>' in crumbs


def test_provider_page_crumbs_walk_its_ancestors(staff):
    root = f.ResourceProviderFactory(name="cn1")
    numa = f.ResourceProviderFactory(name="cn1-numa0", parent=root)
    pf = f.ResourceProviderFactory(name="cn1-numa0-pf0", parent=numa)
    html = staff.get(f"/console/providers/{pf.uuid}/").content.decode()
    crumbs = re.sub(r"\s+", " ", html.split('<nav class="crumbs"', 1)[1].split("</nav>", 1)[0])
    names = re.findall(r">([^<>]+)</a>", crumbs)
    assert names == ["Overview", "Providers", "cn1", "cn1-numa0"]
    assert crumbs.rstrip().endswith("› cn1-numa0-pf0")
    assert _current(html) == ["Providers"]


def test_consumer_page_crumbs(staff):
    consumer = f.ConsumerFactory()
    html = staff.get(f"/console/consumers/{consumer.uuid}/").content.decode()
    crumbs = html.split('<nav class="crumbs"', 1)[1].split("</nav>", 1)[0]
    assert '<a href="/console/consumers/">Consumers</a>' in crumbs and consumer.uuid[:8] in crumbs
    assert _current(html) == ["Consumers"]


def test_navigation_kept_on_the_404_page(staff):
    resp = staff.get("/console/no-such-page/")
    assert resp.status_code == 404
    html = resp.content.decode()
    for name in PAGES.values():
        assert f">{name}</a>" in html, name
    assert '<a href="/api/docs/">API docs</a>' in html and "Log out op" in html
    resp = staff.get("/console/providers/not-a-provider/")
    assert resp.status_code == 404 and ">Full hosts</a>" in resp.content.decode()


def test_navigation_kept_on_the_500_page_without_touching_the_database():
    from django.urls import get_resolver

    server_error = get_resolver().resolve_error_handler(500)  # the site's handler500
    resp = server_error(RequestFactory().get("/console/providers/"))
    assert resp.status_code == 500
    html = resp.content.decode()
    assert ">Providers</a>" in html and ">Audit</a>" in html and "/api/docs/" in html
    assert "Log out" not in html  # no user: the page must render with the database gone


def test_anonymous_404_keeps_the_links_but_no_logout():
    resp = Client().get("/console/no-such-page/")
    html = resp.content.decode()
    assert resp.status_code == 404 and ">Overview</a>" in html and "Log out" not in html
