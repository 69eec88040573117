"""What keeps the console's pages fast at thousands of providers
(benchmarks/console_pages.py times them): the cyclic collector is held off
while a page is built, as for an API answer."""
import gc

import pytest

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("collector_on")]




def test_a_page_is_built_with_the_collector_off_and_it_comes_back(staff, monkeypatch):
    from console import selectors

    seen = []
    real = selectors.forest

    def forest(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(selectors, "forest", forest)
    assert staff.get("/console/forest/").status_code == 200
    assert seen == [False]
    assert gc.isenabled()
