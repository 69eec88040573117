"""Every setting is read once: placement_site/config.py reads the
environment and placement.conf, settings.py defines each setting from it,
and the code reads ``settings.X`` with no default of its own.

A second reader drifts: ``getattr(settings, "PLACEMENT_ENFORCE_NEW_DEFAULTS",
False)`` once disagreed with config.py's True.  Only the entry points that
name the settings module (and gunicorn's config file, which runs before
Django) touch ``os.environ``.
"""
import ast

from tests.support.layout import project_files

READERS = {
    "placement_site/config.py",
    # Entry points: they set DJANGO_SETTINGS_MODULE (and the CLI the files
    # named by --config-file); gunicorn's hooks run in its arbiter.
    "placement_site/wsgi.py",
    "placement_site/gunicorn_hooks.py",
    "maintenance/cli.py",
    # placement-api run as a program: --config-file/--config-dir, as the CLI.
    "placement/server.py",
}


def readers(relative, source):
    """(line, what) for each environment read or defaulted settings read in ``source``."""
    if relative in READERS:
        return []
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id == "os" and node.attr in ("environ", "getenv", "environb")):
            found.append((node.lineno, f"os.{node.attr}"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "hasattr") and node.args
              and isinstance(node.args[0], ast.Name) and node.args[0].id == "settings"):
            found.append((node.lineno, f"{node.func.id}(settings, ...)"))
    return sorted(found)


def test_only_config_reads_the_environment_and_settings_have_one_default():
    found = [f"{relative}:{line} {what}"
             for relative, source in project_files()
             for line, what in readers(relative, source)]
    assert found == []


def test_the_check_catches_a_second_reader():
    planted = (
        "import os\n"
        "from os import getenv\n"
        "from django.conf import settings\n"
        "KEY = os.environ.get('PLACEMENT_SECRET_KEY')\n"
        "WAIT = os.getenv('PLACEMENT_DB_SYNC_WAIT')\n"
        "NEW = getattr(settings, 'PLACEMENT_ENFORCE_NEW_DEFAULTS', False)\n"
        "HAS = hasattr(settings, 'PLACEMENT_FLAVORS')\n"
    )
    assert readers("placement_core/policy.py", planted) == [
        (4, "os.environ"), (5, "os.getenv"), (6, "getattr(settings, ...)"),
        (7, "hasattr(settings, ...)")]
    assert readers("placement_site/config.py", planted) == []


def test_settings_take_the_defaults_config_declares(settings):
    from placement_site import config

    values, _ = config.load({"OS_PLACEMENT_CONFIG_DIR": "/nonexistent"})
    # config.py's default, not a reader's own (policy.py once said False).
    assert values["PLACEMENT_ENFORCE_NEW_DEFAULTS"] is True
    assert values["PLACEMENT_DB_SYNC_WAIT"] is None
    assert values["PLACEMENT_SECRET_KEY"] == ""
    assert values["PLACEMENT_ALLOWED_HOSTS"] == []
    assert values["DATABASE_URL"] is None
    assert values["KEYSTONE_ENVIRON"] == {}


def test_the_environment_reaches_settings_under_its_old_names():
    from placement_site import config

    values, _ = config.load({
        "OS_PLACEMENT_CONFIG_DIR": "/nonexistent",
        "PLACEMENT_SECRET_KEY": "k" * 50, "PLACEMENT_ALLOWED_HOSTS": "a.example, b.example",
        "PLACEMENT_CSRF_TRUSTED_ORIGINS": "https://a.example",
        "DATABASE_URL": "postgres://u@h/db", "OS_PLACEMENT_DATABASE__CONNECTION": "sqlite:///x",
        "PLACEMENT_DB_SYNC_WAIT": "1", "PROMETHEUS_MULTIPROC_DIR": "/tmp/m",
        "PLACEMENT_KEYSTONE_AUTH_URL": "http://k/v3", "OS_KEYSTONE_AUTHTOKEN__REGION_NAME": "r",
        "XDG_STATE_HOME": "/state", "UNRELATED": "x",
    })
    assert values["PLACEMENT_SECRET_KEY"] == "k" * 50
    assert values["PLACEMENT_ALLOWED_HOSTS"] == ["a.example", "b.example"]
    assert values["PLACEMENT_CSRF_TRUSTED_ORIGINS"] == ["https://a.example"]
    assert values["DATABASE_URL"] == "postgres://u@h/db"
    assert values["PLACEMENT_DB_SYNC_WAIT"] == 1
    assert values["PROMETHEUS_MULTIPROC_DIR"] == "/tmp/m"
    assert values["KEYSTONE_ENVIRON"] == {"PLACEMENT_KEYSTONE_AUTH_URL": "http://k/v3",
                                          "OS_KEYSTONE_AUTHTOKEN__REGION_NAME": "r"}
    assert values["HOME_ENVIRON"] == {"XDG_STATE_HOME": "/state"}
