"""No module reaches into another module's private names.

A leading underscore means "private to this module": importing such a name
from another module (``from allocations.services import _check``) or
reading it through an imported module (``services._check``) ties the two
together behind the public interface's back. The project's own modules are
read as source, tests and migrations aside.
"""
import ast
from pathlib import Path

from tests.support.layout import LAYER, ROOT


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _project_modules() -> dict:
    return {
        _module_name(path): path
        for app in LAYER
        for path in sorted((ROOT / app).rglob("*.py"))
        if "migrations" not in path.parts
    }


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_uses(source: str, own: str, modules) -> list:
    """(line, text) for each private name of another project module that
    ``source`` (the module ``own``) imports or reads through a module."""
    tree = ast.parse(source)
    found, aliases = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules and alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in modules:
            for alias in node.names:
                target = f"{node.module}.{alias.name}"
                if target in modules:
                    aliases[alias.asname or alias.name] = target
                elif _private(alias.name) and node.module != own:
                    found.append((node.lineno, f"from {node.module} import {alias.name}"))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases and _private(node.attr)
                and aliases[node.value.id] != own):
            found.append((node.lineno, f"{aliases[node.value.id]}.{node.attr}"))
    return sorted(found)


def test_no_module_uses_another_modules_private_names():
    modules = _project_modules()
    uses = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for name, path in modules.items()
        for line, text in private_uses(path.read_text(encoding="utf-8"), name, modules)
    ]
    assert uses == []


def test_the_check_sees_both_ways_of_reaching_in():
    modules = {"allocations.services", "allocations", "candidates.engine", "candidates"}
    source = (
        "from allocations.services import _check, run\n"
        "from candidates import engine\n"
        "engine._search(1)\n"
        "engine.find_candidates(2)\n"
        "engine.__name__\n"
    )
    assert private_uses(source, "console.views", modules) == [
        (1, "from allocations.services import _check"),
        (3, "candidates.engine._search"),
    ]
    # A module's own private names are its own business.
    assert private_uses("from allocations.services import _check\n",
                        "allocations.services", modules) == []


# -- Tests do not lean on each other -------------------------------------------------

def _imported_modules(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"


def leaning_imports(source: str, own: str) -> list:
    """(line, module) for each import in ``source`` (the test-tree module
    ``own``, e.g. ``tests.console.test_pages``) of another package's conftest
    or of any test module: what tests share lives in ``tests.support``."""
    package = own.rpartition(".")[0]
    found = set()
    for line, name in _imported_modules(ast.parse(source)):
        parts = name.split(".")
        if parts[0] != "tests":
            continue
        for i, part in enumerate(parts):
            if part == "conftest" and ".".join(parts[:i]) != package:
                found.add((line, ".".join(parts[:i + 1])))
            elif part.startswith("test_"):
                found.add((line, ".".join(parts[:i + 1])))
    return sorted(found)


def test_no_test_imports_another_packages_conftest_or_a_test_module():
    tests = ROOT / "tests"
    found = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in sorted(tests.rglob("*.py"))
        for line, module in leaning_imports(path.read_text(encoding="utf-8"),
                                            _module_name(path))
    ]
    assert found == []


def test_the_check_catches_a_foreign_conftest_and_a_test_module():
    source = ("from tests.candidates.conftest import World\n"
              "import tests.browser.test_console_browser\n"
              "from tests.commands import test_dump_load\n"
              "from tests.galera.conftest import sql\n"
              "from tests.support.world import World\n")
    assert leaning_imports(source, "tests.console.test_pages") == [
        (1, "tests.candidates.conftest"), (2, "tests.browser.test_console_browser"),
        (3, "tests.commands.test_dump_load"), (4, "tests.galera.conftest")]
    # A package's own conftest is its own business.
    assert leaning_imports(source, "tests.galera.test_galera_races") == [
        (1, "tests.candidates.conftest"), (2, "tests.browser.test_console_browser"),
        (3, "tests.commands.test_dump_load")]
