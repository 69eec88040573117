"""What counts as a uuid in a path or a query: the spellings upstream takes
(oslo's is_uuid_like: any case, dashes anywhere, braces, ``urn:uuid:``), not
everything Python's ``uuid.UUID`` parses. ``UUID()`` also reads a ``0x``
prefix, spaces, ``_`` between digits, a ``+`` and non-ASCII digits, each as
*another* uuid ("0x" + 30 digits is 00...), which upstream refuses."""
import re
from urllib.parse import quote

import pytest

from placement_core.uuids import UUID_SPELLING, normalize_uuid
from tests.factories import ResourceProviderFactory

pytestmark = pytest.mark.django_db

HEX = "5a1b2c3d4e5f40718293a4b5c6d7e8f9"
CANONICAL = "5a1b2c3d-4e5f-4071-8293-a4b5c6d7e8f9"

TAKEN = [
    CANONICAL, HEX, HEX.upper(), "{" + CANONICAL + "}", "urn:uuid:" + CANONICAL,
    "urn:uuid:{" + HEX + "}", "uuid:" + HEX, "-" + HEX[:5] + "--" + HEX[5:] + "-",
]
NOT_UUIDS = [
    "0x" + HEX[2:],                      # UUID() reads it as 005a...
    " " + HEX[1:],                        # as 0a1b...
    HEX[:16] + "_" + HEX[17:],            # int()'s digit separator
    "+" + HEX[1:],
    "\u0661" * 32,                        # ARABIC-INDIC DIGIT ONE, read as 1111...
    HEX[:31], HEX + "0", "-{" + HEX + "}", CANONICAL + "\n",
]


@pytest.mark.parametrize("value", TAKEN)
def test_upstreams_spellings_are_uuids(value):
    assert normalize_uuid(value) == CANONICAL
    assert re.fullmatch(UUID_SPELLING, value)


@pytest.mark.parametrize("value", NOT_UUIDS)
def test_what_only_python_reads_as_a_uuid_is_not_one(value):
    assert normalize_uuid(value) is None
    assert not re.fullmatch(UUID_SPELLING, value)


@pytest.mark.parametrize("value", NOT_UUIDS[:5])
def test_the_api_refuses_them(api, value):
    rp = ResourceProviderFactory()
    response = api.get(f"/resource_providers?member_of={quote(value)}", mv="1.39")
    assert response.status_code == 400, response.content
    assert "valid UUID" in response.json()["errors"][0]["detail"]
    response = api.get(f"/resource_providers/{rp.uuid}", mv="1.39")
    assert response.status_code == 200
    response = api.put(f"/allocations/{quote(value)}", mv="1.39", json={
        "allocations": {}, "project_id": "p", "user_id": "u", "consumer_generation": None})
    assert response.status_code == 400, response.content
