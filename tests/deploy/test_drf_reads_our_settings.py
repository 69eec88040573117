"""Reading the settings must not make DRF read its own too early: it would
cache its defaults, and Placement errors would become 500s (it happened when
the settings reader first parsed PLACEMENT_FLAVORS through the grammar)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_drf_uses_placements_exception_handler_in_a_fresh_process():
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='placement_site.settings';"
        "django.setup();"
        "from rest_framework.settings import api_settings;"
        "from placement_core.api import exception_handler;"
        "print(api_settings.EXCEPTION_HANDLER is exception_handler)"
    )
    env = {"PATH": "/usr/bin:/bin", "PLACEMENT_FLAVORS": "m1=VCPU:1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.stdout.strip() == "True", out.stderr[-2000:]
