"""The scratch database of the in-process benchmarks (console_pages.py,
wide_trees.py): Django set up on the database a run was given, or on a
temporary SQLite file, and emptied before loading."""
import contextlib
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@contextlib.contextmanager
def django_on(database_url: str, name: str, **environ):
    """Django set up on ``database_url`` (or ``<name>.sqlite3`` in a temporary
    directory, removed afterwards), authenticating as the tests do
    (noauth2), with ``environ`` set first."""
    with tempfile.TemporaryDirectory(prefix="placement-bench-") as tmp:
        os.environ["DATABASE_URL"] = database_url or f"sqlite:///{tmp}/{name}.sqlite3"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "placement_site.settings")
        os.environ["PLACEMENT_AUTH_STRATEGY"] = "noauth2"
        os.environ.update(environ)
        sys.path.insert(0, ROOT)
        import django

        django.setup()
        yield


def empty_database():
    """Migrate, then flush every table: a scratch database given by URL may
    hold an earlier run's cloud."""
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    call_command("flush", verbosity=0, interactive=False)
    call_command("migrate", verbosity=0, interactive=False)  # the catalog sync after flush
