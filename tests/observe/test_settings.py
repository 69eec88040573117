"""The observability settings are parsed strictly, like every other: a bad
value stops start-up with one line naming it."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("name,value,message", [
    ("PLACEMENT_ALLOCATION_HISTORY", "maybe", "expected true or false"),
    ("PLACEMENT_ALLOCATION_HISTORY_RETENTION_DAYS", "-1", "expected an integer from 0 to 36500"),
    ("PLACEMENT_METRICS_CACHE_SECONDS", "ten", "expected an integer >= 0"),
    ("PLACEMENT_USAGE_SNAPSHOT_INTERVAL_SECONDS", "1.5", "expected an integer >= 0"),
    ("PLACEMENT_USAGE_SNAPSHOT_RETENTION_DAYS", "x", "expected an integer from 0 to 36500"),
])
def test_bad_value_stops_start_up(name, value, message):
    env = {**os.environ, name: value, "DJANGO_SETTINGS_MODULE": "placement_site.settings"}
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert name in result.stderr and message in result.stderr


def test_off_is_understood():
    env = {**os.environ, "PLACEMENT_ALLOCATION_HISTORY": "off",
           "DJANGO_SETTINGS_MODULE": "placement_site.settings"}
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); from django.conf import settings;"
         " print(settings.PLACEMENT_ALLOCATION_HISTORY)"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    assert result.stdout.strip() == "False", result.stderr
