import subprocess
import sys

import pytest
from django.conf import settings

from resource_classes.models import ResourceClass, Trait
from providers.models import ResourceProvider
from tests import factories as f
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db


def test_sync_catalog_adds_missing_and_dry_run_changes_nothing():
    ResourceClass.objects.filter(name="VCPU").delete()
    Trait.objects.filter(name="HW_CPU_X86_AVX").delete()
    code, out = run("sync_catalog", "--dry-run")
    assert code == 0
    assert "would add 1 ResourceClass: VCPU" in out
    assert not ResourceClass.objects.filter(name="VCPU").exists()
    code, out = run("sync_catalog")
    assert code == 0
    assert "added 1 ResourceClass" in out and "added 1 Trait" in out
    assert ResourceClass.objects.filter(name="VCPU").exists()
    assert run("sync_catalog")[1].count("added 0") == 2


def test_status_all_good():
    f.ResourceProviderFactory()
    code, out = run("placement_status")
    assert code == 0, out
    assert "all checks passed" in out


def test_status_missing_root():
    rp = f.ResourceProviderFactory()
    ResourceProvider.objects.filter(pk=rp.pk).update(root=None)
    code, out = run("placement_status")
    assert code == 1
    assert f"provider {rp.uuid} has no root provider id" in out


def test_status_incomplete_consumer():
    f.ConsumerFactory(project=f.ProjectFactory(
        external_id=settings.PLACEMENT_INCOMPLETE_CONSUMER_PROJECT_ID))
    code, out = run("placement_status")
    assert code == 1
    assert "1 consumer(s) still carry the incomplete" in out


def test_status_catalog_out_of_sync():
    Trait.objects.filter(name="HW_CPU_X86_AVX").delete()
    code, out = run("placement_status")
    assert code == 1
    assert "standard Trait name(s) missing" in out


def test_status_policy_file_unreadable(settings, tmp_path):
    settings.PLACEMENT_POLICY_FILE = str(tmp_path / "missing.yaml")
    code, out = run("placement_status")
    # The service would not start with it: a failure (2), not a finding (1).
    assert code == 2 and "no such file" in out
    bad = tmp_path / "bad.yaml"
    bad.write_text("rule: [unclosed\n")
    settings.PLACEMENT_POLICY_FILE = str(bad)
    assert run("placement_status")[0] == 2
    good = tmp_path / "good.yaml"
    good.write_text('"placement:resource_providers:list": "@"\n')
    settings.PLACEMENT_POLICY_FILE = str(good)
    assert run("placement_status")[0] == 0


@pytest.mark.parametrize("name", ["sync_catalog", "placement_status", "audit_allocations",
                                  "heal_consumers", "export_json", "load_json", "import_upstream"])
def test_help(name):
    proc = subprocess.run([sys.executable, "manage.py", name, "--help"], capture_output=True,
                          text=True, cwd=settings.BASE_DIR, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Exit codes" in " ".join(proc.stdout.split())


def test_bad_option_exits_2():
    proc = subprocess.run([sys.executable, "manage.py", "heal_consumers"], capture_output=True,
                          text=True, cwd=settings.BASE_DIR, timeout=60)
    assert proc.returncode == 2
