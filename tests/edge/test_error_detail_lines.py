"""The error ``detail`` keeps Placement's two-part shape on the wire.

Upstream renders ``<explanation>\\n\\n <message>  `` with every newline
inside the message turned into a space, so the specific reason is always the
detail's last line.  osc-placement relies on that: it shows the user only
``detail.split('\\n')[-1]`` (e.g. "JSON does not validate: ..." for a bad
resource class name, "... is not a 'uuid'" for a bad aggregate).
"""
import pytest

from placement_core import errors

pytestmark = pytest.mark.django_db


def _detail(response):
    return response.json()["errors"][0]["detail"]


def test_multiline_message_is_flattened_into_the_last_line(api):
    # A JSON-Schema failure: jsonschema's message spans many lines.
    response = api.post("/resource_classes", mv="1.2", json={"name": "fake_class"})
    assert response.status_code == 400
    detail = _detail(response)
    explanation, _, message = detail.partition("\n\n")
    assert explanation == errors.EXPLANATIONS[400]
    assert "\n" not in message
    last_line = detail.split("\n")[-1].strip()
    assert last_line.startswith("JSON does not validate: 'fake_class' does not match")
    assert "On instance['name']:" in last_line
    assert detail.endswith("  ")


def test_carriage_returns_are_dropped(rf):
    request = rf.get("/")
    response = errors.render_error(request, errors.BadRequest("first\r\nsecond\rthird"))
    detail = __import__("json").loads(response.content)["errors"][0]["detail"]
    assert detail == f"{errors.EXPLANATIONS[400]}\n\n first secondthird  "


def test_single_line_message_unchanged(api):
    response = api.get("/resource_providers/not-a-uuid-at-all", mv="1.20")
    assert response.status_code == 404
    assert _detail(response).count("\n") == 2
