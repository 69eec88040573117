"""GET /allocation_candidates checks its query with the one validator every
endpoint uses: the same words, and the same bound on what a message quotes."""
import pytest

pytestmark = pytest.mark.django_db

HUGE = "9" * 20_000 + "x"


@pytest.mark.parametrize("url", [
    f"/allocation_candidates?resources=VCPU:1&limit={HUGE}",
    f"/usages?project_id=p&user_id=u&bogus={HUGE}",
])
def test_a_huge_bad_value_gets_a_bounded_400(api, url):
    r = api.get(url, mv="1.39")
    assert r.status_code == 400
    detail = r.json()["errors"][0]["detail"]
    assert "Invalid query string parameters: " in detail
    assert "characters left out" in detail
    assert len(r.content) < 5_000


def test_the_most_relevant_error_is_named(api):
    # Two things wrong: an unknown key (the whole query) and a bad limit
    # (one value). As with jsonschema.validate, which upstream calls, the
    # error about the whole query is the one named.
    r = api.get("/allocation_candidates?resources=VCPU:1&limit=0&bogus=1", mv="1.39")
    assert r.status_code == 400
    detail = r.json()["errors"][0]["detail"]
    assert "Invalid query string parameters: 'bogus' does not match any of the regexes" in detail
    assert "'0' does not match" not in detail
