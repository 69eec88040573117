"""Console pages given what no row can hold (a NUL character) or numbers
past any date: a 400 page that says what was refused and keeps the
navigation, never a 500 (issue 28, items 3 and 4)."""
import pytest

pytestmark = pytest.mark.django_db

NUL_URLS = [
    "/console/providers/?name=%00",
    "/console/providers/?uuid=%00",
    "/console/providers/?in_tree=%00",
    "/console/providers/?required=%00",
    "/console/providers/?member_of=%00",
    "/console/providers/?q=%00",
    "/console/consumers/?q=%00",
    "/console/consumers/?type=%00",
    "/console/usage/?aggregate=%00",
    "/console/forest/?q=%00",
    "/console/providers/%00/",
    "/console/consumers/%00/",
    "/console/why/?q=resources%3DVCPU%3A1%26required%3D%00",
    "/console/?format=csv&table=%00",
    "/console/flavors/?format=%00",
]


@pytest.mark.parametrize("url", NUL_URLS)
def test_a_nul_anywhere_is_a_400_page_with_the_navigation(staff, url):
    response = staff.get(url)
    assert response.status_code == 400
    html = response.content.decode()
    assert "NUL character" in html
    assert 'href="/console/providers/"' in html  # the navigation is kept


def test_a_nul_in_a_posted_field_is_refused_too(staff):
    response = staff.post("/console/flavors/", {"name": "a\x00b", "resources": "VCPU:1"})
    assert response.status_code in (200, 400)
    assert "Null characters are not allowed" in response.content.decode() \
        or "NUL character" in response.content.decode()


@pytest.mark.parametrize("days", ["10000000", "99999999999999999999", "3651"])
def test_usage_days_past_the_bound_say_so(staff, days):
    response = staff.get(f"/console/usage/?days={days}")
    assert response.status_code == 400
    html = response.content.decode()
    assert "at most 3650" in html
    assert 'href="/console/providers/"' in html


def test_usage_days_within_the_bound_are_served(staff):
    assert staff.get("/console/usage/?days=3650").status_code == 200


LONG = "x" * 100_000  # past the longest LIKE pattern SQLite takes


@pytest.mark.parametrize("page,csv", [("providers", False), ("providers", True),
                                      ("consumers", False), ("consumers", True)])
def test_a_search_longer_than_anything_searched_finds_nothing(staff, page, csv):
    from tests import factories as f

    f.AllocationFactory(consumer=f.ConsumerFactory(project=f.ProjectFactory(
        external_id=LONG[:255])))
    response = staff.get(f"/console/{page}/?q={LONG}" + ("&format=csv" if csv else ""))
    assert response.status_code == 200
    body = (b"".join(response.streaming_content) if csv else response.content).decode()
    assert "0 " + page[:-1] in body or body.count("\n") == 1


def test_a_long_project_id_is_still_found_whole(staff):
    from tests import factories as f

    consumer = f.ConsumerFactory(project=f.ProjectFactory(external_id="p" * 255))
    body = staff.get(f"/console/consumers/?q={'p' * 255}").content.decode()
    assert "1 consumer" in body and consumer.uuid in body
