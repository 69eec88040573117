"""GET /resource_providers is rendered straight to JSON text (no per-provider
dicts); it must stay byte for byte what json.dumps of the dict form gives."""
import json
from unittest import mock

import pytest

from placement_core.microversion import Version
from providers import selectors
from providers.api import views
from providers.models import ResourceProvider
from tests.factories import ResourceProviderFactory

pytestmark = pytest.mark.django_db

ODD_NAMES = [
    "plain",
    'quote " and backslash \\ and slash /',
    "tab\tnewline\ncontrol\x01",
    "unicode \u00e9\u4e2d and astral \U0001F600",
    "\u2028line separator\u2029",
]


def _reference(mv):
    rows = selectors.provider_rows(ResourceProvider.objects.all())
    return json.dumps({"resource_providers": [views.render_provider(r, mv) for r in rows]})


@pytest.fixture
def providers():
    made = []
    for name in ODD_NAMES:
        root = ResourceProviderFactory(name=name)
        made.append(root)
        made.append(ResourceProviderFactory(name=name + " child", parent=root))
    return made


@pytest.mark.parametrize("mv", ["1.0", "1.1", "1.6", "1.11", "1.14", "1.39"])
def test_text_is_json_dumps_of_the_dicts(providers, mv):
    version = Version.parse(mv)
    listed = selectors.provider_list_rows(ResourceProvider.objects.all())
    assert views._provider_list_json(listed, version) == _reference(version)


def test_script_prefix_needing_escapes(providers):
    version = Version.parse("1.39")
    with mock.patch.object(views, "get_script_prefix", return_value='/pl"ace\u00e9/'):
        listed = selectors.provider_list_rows(ResourceProvider.objects.all())
        assert views._provider_list_json(listed, version) == _reference(version)


def test_empty_list():
    listed = selectors.provider_list_rows(ResourceProvider.objects.all())
    assert views._provider_list_json(listed, Version.parse("1.39")) == '{"resource_providers": []}'


@pytest.mark.parametrize("mv", ["1.0", "1.14", "1.39"])
def test_endpoint_body_matches_reference(api, providers, mv, django_assert_max_num_queries):
    with django_assert_max_num_queries(1):
        response = api.get("/resource_providers", mv=mv)
    assert response.status_code == 200
    assert response["content-type"] == "application/json"
    assert response.content.decode() == _reference(Version.parse(mv))
    assert len(response.json()["resource_providers"]) == 2 * len(ODD_NAMES)
