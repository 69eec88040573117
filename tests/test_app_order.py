"""The apps import each other in one direction only (docs/architecture.md).

Order: placement_core < resource_classes < providers < allocations <
{candidates, operations} < planning < {reshaper, console, maintenance} <
placement_site < placement (upstream's entry-point names).  A module may
import its own app and the apps below it; apps on one floor do not import
each other.  placement_site (settings, urls, wsgi)
sits on top of everything and nothing imports it.  The imports are read from the source (top-level and function-level alike), so a lazy
import inside a function counts too.
"""
import ast

import pytest

from tests.support.layout import LAYER, ROOT, project_files


def _imports(source, filename="<source>"):
    tree = ast.parse(source, filename=filename)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module


def against_the_order(relative, source):
    """(line, module) for each import of ``source`` (the file ``relative``,
    in its app) that names an app on its own floor or above."""
    app = relative.split("/")[0]
    layer = LAYER[app]
    return [
        (line, module) for line, module in _imports(source, relative)
        if (target := module.split(".")[0]) in LAYER and target != app and LAYER[target] >= layer
    ]


def test_no_import_runs_against_the_app_order():
    unexpected = sorted(
        f"{relative}:{line} imports {module}"
        for relative, source in project_files()
        for line, module in against_the_order(relative, source)
    )
    assert unexpected == []


def test_the_check_catches_an_upward_or_sideways_import():
    source = ("from allocations.models import Consumer\n"
              "import providers.models\n"
              "def late():\n    from console import views\n")
    assert against_the_order("providers/selectors.py", source) == [
        (1, "allocations.models"), (4, "console")]
    assert against_the_order("maintenance/audit.py", source) == [(4, "console")]
    assert against_the_order("console/views.py", source) == []
    # candidates and operations share a floor: neither imports the other.
    assert against_the_order("operations/audit.py", "from candidates import explain\n") == [
        (1, "candidates")]


def test_nothing_outside_console_imports_console():
    # But the wiring on top: the route table sends the console's paths (and
    # their 404 and 500) to it.
    users = sorted(
        f"{relative}:{line}"
        for relative, source in project_files()
        if not relative.startswith(("console/", "placement_site/"))
        for line, module in _imports(source, relative)
        if module.split(".")[0] == "console"
    )
    assert users == []


# What the console's views may import from the project: their own app, the
# one service and form they write flavors through, the audit page's two
# fixes, the error types, and the collector pause every page is built in
# (as the API's answers are).
CONSOLE_VIEW_IMPORTS = {"planning.flavor_services", "planning.forms", "placement_core.errors",
                        "placement_core.gcpause.collector_paused",
                        "operations.audit.drop_allocations_without_inventory",
                        "allocations.consumer_services.consumers_delete_empty"}


@pytest.mark.parametrize("module", ["console/views.py", "console/planning_views.py",
                                    "console/audit_views.py"])
def test_console_views_read_through_console_selectors_only(module):
    source = (ROOT / module).read_text(encoding="utf-8")
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
    outside = sorted(
        name for name in names
        if name.split(".")[0] in LAYER and name.split(".")[0] != "console"
        and not any(name == allowed or name.startswith(allowed + ".")
                    for allowed in CONSOLE_VIEW_IMPORTS)
    )
    assert outside == []
    assert ".objects" not in source


def test_the_candidate_engine_imports_no_api_package():
    # The engine takes a typed CandidateRequest and returns a typed result:
    # HTTP shapes live in candidates/api/, which imports the engine, never
    # the other way round.
    found = sorted(
        f"{relative}:{line} imports {module}"
        for relative, source in project_files()
        if relative.startswith("candidates/") and not relative.startswith("candidates/api/")
        for line, module in _imports(source, relative)
        if "api" in module.split(".")[1:]
    )
    assert found == []
