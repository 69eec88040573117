"""Console views read through console/selectors.py only: no model, no
manager, no other app's read function in console/views.py (its writes go
through allocations.services and allocations.audit)."""
import ast
from pathlib import Path

VIEWS = Path(__file__).resolve().parents[2] / "console" / "views.py"

# What the views may import from the apps: the selectors, the services and
# fixes they write through, the forms and filters they validate with, the
# explain service and its query reader, errors.
ALLOWED = {
    "allocations": {"audit", "services"},
    "allocations.forms": {"FlavorForm"},
    "candidates": {"explain", "query"},
    "console": {"charts", "paste", "selectors"},
    "console.throttle": {"ThrottledAuthenticationForm"},
    "placement_site": {"errors"},
    "providers.filters": {"ResourceProviderFilterSet"},
}
APPS = {"allocations", "candidates", "console", "maintenance", "placement_site", "providers",
        "reshaper", "resource_classes"}


def test_views_import_no_models_or_other_reads():
    tree = ast.parse(VIEWS.read_text(encoding="utf-8"))
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in APPS:
            found.setdefault(node.module, set()).update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            assert not any(a.name.split(".")[0] in APPS for a in node.names)
    extra = {m: names - ALLOWED.get(m, set()) for m, names in found.items()}
    assert {m: n for m, n in extra.items() if n} == {}


def test_views_touch_no_manager():
    tree = ast.parse(VIEWS.read_text(encoding="utf-8"))
    managers = [node.lineno for node in ast.walk(tree)
                if isinstance(node, ast.Attribute) and node.attr == "objects"]
    assert managers == []
