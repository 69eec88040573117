"""The package declares what it imports, and requirements.txt pins exactly that.

Three lists must agree, and each test here fails when one is changed without
the others:

* the third-party modules the installed packages import (read from their
  source, every ``import`` statement) or name in settings (apps, middleware,
  storage backends), mapped to the distributions that provide them;
* ``[project] dependencies`` in pyproject.toml (what ``pip install .`` pulls);
* requirements.txt (what ``make`` and CI install, pinned): the dependencies
  and everything they pull in, nothing else.
"""
import ast
import importlib.metadata
import sys
import tomllib
from pathlib import Path

from django.conf import settings
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

PROJECT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((PROJECT / "pyproject.toml").read_text())
# Needed at run time without being imported: the WSGI server the docs and
# the deployment tools start.
SERVED_BY = {"gunicorn"}
# Modules only the optional parts import, and the extra that declares them.
OPTIONAL = {"keystonemiddleware": "keystone"}
# Installer tools a virtualenv brings along; never pinned.
INSTALLER = {"pip", "setuptools", "wheel"}


def packaged_apps():
    """Top-level packages pyproject.toml installs (``include`` patterns)."""
    include = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    return {pattern.rstrip("*").rstrip(".") for pattern in include}


def imported_modules():
    """{top-level third-party module: a file that imports it}."""
    own = packaged_apps()
    found = {}
    for package in sorted(own):
        for path in sorted((PROJECT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in own:
                        found.setdefault(top, str(path.relative_to(PROJECT)))
    named = list(settings.INSTALLED_APPS) + list(settings.MIDDLEWARE) + [
        store["BACKEND"] for store in settings.STORAGES.values()]
    for dotted in named:
        top = dotted.split(".")[0]
        if top not in sys.stdlib_module_names and top not in own:
            found.setdefault(top, "placement_site/settings.py")
    return found


def distribution_of(module):
    dists = importlib.metadata.packages_distributions().get(module)
    assert dists, f"{module} is imported but no installed distribution provides it"
    return canonicalize_name(dists[0])


def declared():
    return {canonicalize_name(Requirement(r).name): Requirement(r)
            for r in PYPROJECT["project"]["dependencies"]}


def pinned():
    pins = {}
    for line in (PROJECT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            requirement = Requirement(line)
            (spec,) = requirement.specifier
            pins[canonicalize_name(requirement.name)] = spec.version
    return pins


def closure(requirements):
    """Every distribution ``requirements`` pull in, from installed metadata."""
    seen, todo = set(), list(requirements)
    while todo:
        requirement = todo.pop()
        key = (canonicalize_name(requirement.name), frozenset(requirement.extras))
        if key in seen:
            continue
        seen.add(key)
        for text in importlib.metadata.requires(requirement.name) or []:
            child = Requirement(text)
            extras = [""] + sorted(requirement.extras)
            if child.marker is None or any(child.marker.evaluate({"extra": e}) for e in extras):
                todo.append(child)
    return {name for name, _extras in seen} - INSTALLER


def test_every_runtime_import_is_a_declared_dependency():
    modules = imported_modules()
    needed = {distribution_of(m) for m in modules if m not in OPTIONAL} | SERVED_BY
    have = set(declared())
    missing = {d: [f for m, f in modules.items()
                   if m not in OPTIONAL and distribution_of(m) == d] for d in needed - have}
    assert not missing, f"imported but not in pyproject dependencies: {missing}"
    assert not have - needed, f"declared but never imported: {sorted(have - needed)}"


def test_optional_imports_are_extras():
    extras = PYPROJECT["project"]["optional-dependencies"]
    for module, extra in OPTIONAL.items():
        assert module in imported_modules()
        assert module in [canonicalize_name(Requirement(r).name) for r in extras[extra]]


def test_requirements_pin_the_dependencies_and_what_they_pull_in():
    pins = pinned()
    needed = closure(declared().values())
    assert not needed - set(pins), f"pulled in but not pinned: {sorted(needed - set(pins))}"
    assert not set(pins) - needed, f"pinned but nothing needs it: {sorted(set(pins) - needed)}"


def test_the_pins_are_inside_the_declared_ranges():
    pins = pinned()
    for name, requirement in declared().items():
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"requirements.txt pins {name}=={pins[name]}, outside {requirement}")


def test_every_project_app_is_packaged():
    project_apps = {app for app in settings.INSTALLED_APPS if (PROJECT / app).is_dir()}
    assert project_apps <= packaged_apps(), sorted(project_apps - packaged_apps())
