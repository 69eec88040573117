"""A worker freezes what it loaded at start-up out of the cyclic collector's way."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_loading_the_wsgi_application_freezes_the_startup_objects(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PLACEMENT_", "OS_"))}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
               PLACEMENT_AUTH_STRATEGY="noauth2", DJANGO_SETTINGS_MODULE="placement_site.settings")
    code = ("import gc; before = gc.get_freeze_count(); import placement_site.wsgi; "
            "print(before, gc.get_freeze_count())")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True, timeout=120).stdout.split()
    before, after = int(out[0]), int(out[1])
    assert before == 0
    # Django, DRF and the policy are tens of thousands of objects.
    assert after > 20_000
