"""A policy file that does not parse is refused with one clear line by the
service, policy_show and placement_status."""
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from placement_core import policy


@pytest.fixture(autouse=True)
def _fresh_policy():
    policy.reset()
    yield
    policy.reset()


@pytest.mark.parametrize("text,words", [
    ("a: [\n", r"is not valid YAML \(line 2\)"),
    ("- just\n- a list\n", "is not a mapping"),
    ('"placement:resource_providers:list": 3\n', "must be a check string"),
    ('"placement:resource_providers:list": "role:admin or ("\n', "does not parse"),
])
def test_bad_file_is_refused(tmp_path, text, words):
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    with pytest.raises(policy.PolicyFileError, match=words):
        policy.validate_policy_file(str(path))


def test_good_file_and_deliberate_deny_pass(tmp_path):
    path = tmp_path / "policy.yaml"
    path.write_text('"placement:resource_providers:list": "!"\n'
                    '"placement:resource_providers:show": "role:reader and system_scope:all"\n')
    policy.validate_policy_file(str(path))


def test_policy_show_reports_a_bad_file(tmp_path, settings):
    path = tmp_path / "policy.yaml"
    path.write_text("a: [\n")
    settings.PLACEMENT_POLICY_FILE = str(path)
    with pytest.raises(CommandError, match="not valid YAML") as info:
        call_command("policy_show")
    assert info.value.returncode == 2


@pytest.mark.django_db
def test_placement_status_fails_with_exit_2(tmp_path, settings, capsys):
    path = tmp_path / "policy.yaml"
    path.write_text("a: [\n")
    settings.PLACEMENT_POLICY_FILE = str(path)
    with pytest.raises(SystemExit) as info:
        call_command("placement_status")
    assert info.value.code == 2
    assert "[FAIL] Policy file is readable" in capsys.readouterr().out


def test_policy_show_into_a_closed_pipe_is_quiet():
    """`policy_show | head`: the reader leaving early is no error and no traceback."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line is written
    try:
        done = subprocess.run([sys.executable, str(root / "manage.py"), "policy_show"],
                              stdout=write, stderr=subprocess.PIPE, text=True, env=env,
                              cwd=root, timeout=120)
    finally:
        os.close(write)
    assert done.returncode == 0, done.stderr
    assert "BrokenPipeError" not in done.stderr and "Traceback" not in done.stderr
