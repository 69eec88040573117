"""providers.selectors.provider_get: the one look-up of a provider by uuid."""
import pytest
from django.db import connection

from placement_core import errors
from providers.selectors import provider_get, provider_row
from tests import factories as f

pytestmark = pytest.mark.django_db


def test_any_spelling_finds_the_provider():
    rp = f.ResourceProviderFactory()
    for spelled in (rp.uuid, rp.uuid.upper(), rp.uuid.replace("-", "")):
        assert provider_get(uuid=spelled).pk == rp.pk
        assert provider_row(uuid=spelled)["uuid"] == rp.uuid


def test_exact_matches_the_stored_spelling_only():
    rp = f.ResourceProviderFactory()
    assert provider_get(uuid=rp.uuid, exact=True).pk == rp.pk
    if connection.vendor == "mysql":
        # Upstream's tables compare case-insensitively there (the shared
        # schema takes the server's collation, as upstream's db sync does).
        assert provider_get(uuid=rp.uuid.upper(), exact=True).pk == rp.pk
        return
    with pytest.raises(errors.NotFound) as caught:
        provider_get(uuid=rp.uuid.upper(), exact=True)
    assert str(caught.value.detail) == f"No resource provider with uuid {rp.uuid.upper()} found"


@pytest.mark.parametrize("bad", ["not-a-uuid", "\x00", "7d1e2b0c-0000-4000-8000-000000000000"])
def test_missing_or_malformed_is_a_404_naming_the_uuid_as_given(bad):
    for lookup in (provider_get, provider_row):
        with pytest.raises(errors.NotFound) as caught:
            lookup(uuid=bad)
        assert str(caught.value.detail) == f"No resource provider with uuid {bad} found"
