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
}
