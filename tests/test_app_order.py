"""The apps import each other in one direction only (docs/architecture.md).

Order: placement_site < resource_classes < providers < allocations <
candidates < {reshaper, console, maintenance}.  A module may import its own
app and the apps below it; the three on top do not import each other.  The imports
are read from the source (top-level and function-level alike), so a lazy
import inside a function counts too.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LAYER = {
    "placement_site": 0,
    "resource_classes": 1,
    "providers": 2,
    "allocations": 3,
    "candidates": 4,
    "reshaper": 5,
    "console": 5,
    "maintenance": 5,
}

# The root URLconf is the project's wiring, not part of the placement_site
# layer: the one route table imports every app's views by design.
# The console scripts (placement-manage, placement-status) are wiring too:
# they run every app's commands and checks.
WIRING = {"placement_site/urls.py"}

# Imports that run against the order, each with its reason (at most three).
# Empty now: every import runs with the order.
ALLOWED: set = set()


def _imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module


def _against_the_order():
    found = set()
    for app, layer in LAYER.items():
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "migrations" in path.parts or relative in WIRING:
                continue
            for line, module in _imports(path):
                target = module.split(".")[0]
                if target in LAYER and target != app and LAYER[target] >= layer:
                    found.add((relative, module, line))
    return found


def test_no_import_runs_against_the_app_order():
    unexpected = sorted(
        f"{path}:{line} imports {module}"
        for path, module, line in _against_the_order()
        if (path, module) not in ALLOWED
    )
    assert unexpected == []


def test_the_allow_list_is_short_and_true():
    assert len(ALLOWED) <= 3
    present = {(path, module) for path, module, _ in _against_the_order()}
    assert sorted(ALLOWED - present) == [], "stale ALLOWED entries: delete them"


def test_nothing_outside_console_imports_console():
    users = sorted(
        f"{path.relative_to(ROOT)}:{line}"
        for app in LAYER
        if app != "console"
        for path in (ROOT / app).rglob("*.py")
        for line, module in _imports(path)
        if module.split(".")[0] == "console"
    )
    assert users == []
