"""The browser tests' Chromium (Playwright, headless) and where their screenshots go.

Run with `make test-browser` (pytest -m browser; tests/conftest.py skips them
otherwise).
"""
import os
import shutil
from pathlib import Path

import pytest


CHROMIUM = os.environ.get("PLACEMENT_CHROMIUM", "/usr/bin/chromium")


SHOTS = Path(__file__).resolve().parent / "screenshots"


ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -r requirements-browser.txt")
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not found (apt-get install -y chromium)")
    # Playwright's sync API keeps an event loop in this thread; the ORM calls
    # the tests make around it are synchronous and safe.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()
