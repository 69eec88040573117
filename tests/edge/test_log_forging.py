"""A client cannot forge log lines: what it chose (a path with %0A, a name)
is logged with its control characters escaped, by every log handler."""
import io
import logging

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def console_log():
    handler = next(h for h in logging.getLogger().handlers
                   if any(type(f).__name__ == "EscapeControlCharacters" for f in h.filters))
    # Assigned, not setStream(): that flushes the old stream, which may be a
    # capture file pytest already closed.
    stream, old = io.StringIO(), handler.stream
    handler.stream = stream
    levels = {name: logging.getLogger(name).level
              for name in ("", "django.request", "placement.requestlog")}
    logging.getLogger().setLevel(logging.INFO)
    logging.getLogger("django.request").setLevel(logging.WARNING)
    logging.getLogger("placement.requestlog").setLevel(logging.INFO)
    yield stream
    handler.stream = old
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


FORGED = "FORGED 127.0.0.1 \"GET /secret\" status: 200"


def test_a_failing_path_cannot_start_a_line(api, console_log):
    response = api.get(f"/resource_providers/x%0A{FORGED.replace(' ', '%20')}/inventories")
    assert response.status_code == 404
    lines = console_log.getvalue().splitlines()
    assert lines, "the request was logged"
    assert not any(line.startswith("FORGED") for line in lines)
    assert any("\\x0aFORGED" in line for line in lines)


def test_a_traceback_keeps_its_lines(console_log):
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("placement.test").exception("failed on a\nb")
    text = console_log.getvalue()
    assert "failed on a\\x0ab" in text
    # oslo.log writes each traceback line as a line of its own, behind
    # logging_exception_prefix.
    assert any(line.endswith(" Traceback (most recent call last):")
               for line in text.splitlines())
