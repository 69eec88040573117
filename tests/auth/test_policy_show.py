"""manage.py policy_show."""
from io import StringIO

import yaml
from django.core.management import call_command

from placement_core import policy


def run(*args):
    out = StringIO()
    call_command("policy_show", *args, stdout=out)
    return out.getvalue()


def test_effective_policy_is_a_valid_policy_file(settings):
    settings.PLACEMENT_ENFORCE_NEW_DEFAULTS = True
    rules = yaml.safe_load(run())
    assert set(policy.RULES) <= set(rules)
    assert rules["placement:reshaper:reshape"] == "rule:service_api"
    settings.PLACEMENT_ENFORCE_NEW_DEFAULTS = False
    rules = yaml.safe_load(run())
    assert rules["placement:reshaper:reshape"] == "(rule:service_api or rule:admin_api)"


def test_policy_file_overrides_are_shown(settings, tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("placement:traits:list: '@'\n")
    settings.PLACEMENT_POLICY_FILE = str(path)
    text = run()
    assert yaml.safe_load(text)["placement:traits:list"] == "@"
    assert "# from: policy file" in text


def test_sample_is_all_comments():
    text = run("--sample")
    assert all(line.startswith("#") or not line for line in text.splitlines())
    assert '#"placement:usages": "rule:admin_or_project_reader_or_service_api"' in text


def test_check_mode(settings):
    settings.PLACEMENT_ENFORCE_NEW_DEFAULTS = True
    settings.PLACEMENT_ENFORCE_SCOPE = True
    lines = run("--roles", "reader").splitlines()
    assert "passed: placement:usages" in lines
    assert "failed: placement:resource_providers:list" in lines
    lines = run("--roles", "service").splitlines()
    assert "passed: placement:reshaper:reshape" in lines
    lines = run("--roles", "admin", "--system-scope", "all").splitlines()
    assert all(line.startswith("failed") for line in lines)
