"""placement.conf, OS_<GROUP>__<OPTION> and PLACEMENT_* are read with
upstream's option names, in a fixed order, and a bad value is refused."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from placement_site import config

PROJECT_DIR = Path(__file__).resolve().parents[2]


def write_conf(tmp_path, text):
    (tmp_path / "placement.conf").write_text(text)
    return {"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)}


def test_defaults_without_any_file(tmp_path):
    values, _ = config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)})
    assert values["PLACEMENT_AUTH_STRATEGY"] == "keystone"
    assert values["PLACEMENT_ENFORCE_SCOPE"] is True
    assert values["PLACEMENT_MAX_ALLOCATION_CANDIDATES"] == -1
    assert values["PLACEMENT_ALLOCATION_CONFLICT_RETRY_COUNT"] == 10
    assert values["DATABASE_CONNECTION"] is None
    assert values["CONFIG_FILES"] == []


def test_placement_conf_is_read_with_upstream_names(tmp_path):
    environ = write_conf(tmp_path, """
[placement_database]
connection = postgresql+psycopg2://root@127.0.0.1:5432/x
[api]
auth_strategy = noauth2
[placement]
randomize_allocation_candidates = true
max_allocation_candidates = 50
allocation_candidates_generation_strategy = breadth-first
allocation_conflict_retry_count = 3
incomplete_consumer_project_id = p
incomplete_consumer_user_id = u
[oslo_policy]
enforce_new_defaults = false
enforce_scope = false
policy_file = /tmp/p.yaml
[cors]
allowed_origin = https://a.example,https://b.example
allow_headers = X-One
""")
    values, _ = config.load(environ)
    assert values["DATABASE_CONNECTION"] == "postgresql+psycopg2://root@127.0.0.1:5432/x"
    assert values["PLACEMENT_AUTH_STRATEGY"] == "noauth2"
    assert values["PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES"] is True
    assert values["PLACEMENT_MAX_ALLOCATION_CANDIDATES"] == 50
    assert values["PLACEMENT_ALLOCATION_CANDIDATES_GENERATION_STRATEGY"] == "breadth-first"
    assert values["PLACEMENT_ALLOCATION_CONFLICT_RETRY_COUNT"] == 3
    assert values["PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID"] == "p"
    assert values["PLACEMENT_INCOMPLETE_CONSUMER_USER_ID"] == "u"
    assert values["PLACEMENT_ENFORCE_NEW_DEFAULTS"] is False
    assert values["PLACEMENT_ENFORCE_SCOPE"] is False
    assert values["PLACEMENT_POLICY_FILE"] == "/tmp/p.yaml"
    assert values["PLACEMENT_CORS_ALLOWED_ORIGINS"] == ["https://a.example", "https://b.example"]
    assert values["PLACEMENT_CORS_ALLOW_HEADERS"] == ["X-One"]


def test_os_variable_beats_file_and_placement_variable_beats_both(tmp_path):
    environ = write_conf(tmp_path, "[api]\nauth_strategy = keystone\n"
                                   "[placement]\nmax_allocation_candidates = 5\n")
    environ["OS_API__AUTH_STRATEGY"] = "noauth2"
    environ["OS_PLACEMENT__MAX_ALLOCATION_CANDIDATES"] = "6"
    environ["PLACEMENT_MAX_ALLOCATION_CANDIDATES"] = "7"
    values, _ = config.load(environ)
    assert values["PLACEMENT_AUTH_STRATEGY"] == "noauth2"
    assert values["PLACEMENT_MAX_ALLOCATION_CANDIDATES"] == 7


def test_config_files_variable_replaces_the_directory(tmp_path):
    other = tmp_path / "other.conf"
    other.write_text("[api]\nauth_strategy = noauth2\n")
    values, _ = config.load({"PLACEMENT_CONFIG_FILES": str(other)})
    assert values["PLACEMENT_AUTH_STRATEGY"] == "noauth2"
    with pytest.raises(config.ConfigError, match="does not exist"):
        config.load({"PLACEMENT_CONFIG_FILES": str(tmp_path / "missing.conf")})


@pytest.mark.parametrize("variable,value,words", [
    ("PLACEMENT_ENFORCE_SCOPE", "ture", "true or false"),
    ("PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES", "maybe", "true or false"),
    ("PLACEMENT_ALLOCATION_CANDIDATES_GENERATION_STRATEGY", "sideways",
     "depth-first, breadth-first"),
    ("PLACEMENT_AUTH_STRATEGY", "noauth", "keystone, noauth2"),
    ("PLACEMENT_MAX_ALLOCATION_CANDIDATES", "ten", "an integer"),
    ("PLACEMENT_ALLOCATION_CONFLICT_RETRY_COUNT", "-2", ">= 0"),
    ("PLACEMENT_DEBUG", "yep", "true or false"),
    ("PLACEMENT_LOG_LEVEL", "LOUD", "one of DEBUG"),
    ("PLACEMENT_DB_STARTUP_WAIT", "-1", ">= 0"),
    ("PLACEMENT_DB_STARTUP_WAIT", "soon", "an integer"),
])
def test_bad_placement_variable_is_refused(tmp_path, variable, value, words):
    with pytest.raises(config.ConfigError) as info:
        config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path), variable: value})
    assert variable in str(info.value)
    assert words in str(info.value)


def test_bad_os_variable_and_bad_file_value_are_refused(tmp_path):
    environ = write_conf(tmp_path, "[oslo_policy]\nenforce_scope = ture\n")
    with pytest.raises(config.ConfigError, match=r"\[oslo_policy\] enforce_scope.*true or false"):
        config.load(environ)
    environ = {"OS_PLACEMENT_CONFIG_DIR": str(tmp_path / "none"),
               "OS_PLACEMENT__MAX_ALLOCATION_CANDIDATES": "lots"}
    with pytest.raises(config.ConfigError, match="OS_PLACEMENT__MAX_ALLOCATION_CANDIDATES"):
        config.load(environ)


def test_unparsable_file_is_refused(tmp_path):
    environ = write_conf(tmp_path, "this is not ini\n")
    with pytest.raises(config.ConfigError, match="cannot read configuration"):
        config.load(environ)


def test_manage_py_check_stops_on_a_mistyped_boolean(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PLACEMENT_", "OS_"))}
    env.update(PLACEMENT_ENFORCE_SCOPE="ture", OS_PLACEMENT_CONFIG_DIR=str(tmp_path),
               DJANGO_SETTINGS_MODULE="placement_site.settings")
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=PROJECT_DIR, env=env,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert result.stderr.strip() == (
        "placement: invalid value 'ture' for PLACEMENT_ENFORCE_SCOPE: "
        "expected true or false (also 1/0, yes/no, on/off)"
    )


def test_keystone_authtoken_group_goes_to_keystonemiddleware(settings, tmp_path):
    from placement_site import keystone

    environ = write_conf(tmp_path, "[keystone_authtoken]\nauth_url = http://k:5000/v3\n")
    values, conf = config.load(environ)
    settings.PLACEMENT_CONFIG_FILES = values["CONFIG_FILES"]
    settings.PLACEMENT_OSLO_CONF = conf
    middleware = keystone.middleware_conf({})
    assert middleware["oslo_config_config"] is conf
    # PLACEMENT_KEYSTONE_* still win when set.
    plain = keystone.middleware_conf({"PLACEMENT_KEYSTONE_AUTH_URL": "http://a/v3",
                                      "PLACEMENT_KEYSTONE_PASSWORD": "p"})
    assert plain["auth_url"] == "http://a/v3"
