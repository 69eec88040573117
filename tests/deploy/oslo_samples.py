"""The samples in etc/placement/, made by oslo's own generators.

``oslo-config-generator`` and ``oslopolicy-sample-generator`` find the
``placement`` namespace through the package's entry points; without an
install, a throwaway ``*.dist-info`` carrying pyproject.toml's entry points
stands in.  ``python -m tests.deploy.oslo_samples`` rewrites the samples
(``make samples``); tests/deploy/test_oslo_samples.py fails when they are stale.
"""
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
ETC = PROJECT / "etc" / "placement"
CONFIG_SAMPLE = ETC / "placement.conf.sample"
POLICY_SAMPLE = ETC / "policy.yaml.sample"


def write_entry_points(where: Path) -> None:
    pyproject = tomllib.loads((PROJECT / "pyproject.toml").read_text())
    dist = where / "placement_django-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: placement-django\nVersion: 0\n")
    lines = []
    for group, points in pyproject["project"]["entry-points"].items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {target}" for name, target in points.items()]
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n")


def generate(config_out: Path, policy_out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        write_entry_points(Path(tmp))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([tmp, str(PROJECT)]),
                   DJANGO_SETTINGS_MODULE="placement_site.settings")
        run = dict(cwd=PROJECT, env=env, check=True, capture_output=True, text=True)
        subprocess.run([sys.executable, "-m", "oslo_config.generator", "--config-file",
                        str(ETC / "config-generator.conf"), "--output-file", str(config_out)],
                       **run)
        subprocess.run([sys.executable, "-c", "import sys; from oslo_policy.generator import "
                        "generate_sample; sys.exit(generate_sample())", "--config-file",
                        str(ETC / "policy-generator.conf"), "--output-file", str(policy_out)],
                       **run)


if __name__ == "__main__":
    generate(CONFIG_SAMPLE, POLICY_SAMPLE)
    print(f"wrote {CONFIG_SAMPLE.relative_to(PROJECT)} and {POLICY_SAMPLE.relative_to(PROJECT)}")
