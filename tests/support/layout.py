"""The project's apps in dependency order (docs/architecture.md), read by the
layout tests (tests/test_app_order.py, tests/test_private_names.py)."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LAYER = {
    "placement_core": 0,
    "resource_classes": 1,
    "providers": 2,
    "allocations": 3,
    "candidates": 4,
    "operations": 4,
    "planning": 5,
    "reshaper": 6,
    "console": 6,
    "maintenance": 6,
    "placement_site": 7,
    # Upstream's entry points (placement.wsgi.api, placement-api) on top.
    "placement": 8,
}


def project_files():
    """(path from the root, source) of every module of the apps, migrations aside."""
    for app in LAYER:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")
