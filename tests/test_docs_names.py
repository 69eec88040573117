"""The documentation names only what exists.

README.md and docs/*.md are read for three kinds of name, and each must
resolve in this checkout:

- a dotted Python name in backticks whose first part is one of the
  project's packages (`placement_core.errors.NotFound`,
  `candidates.explain.explain`, `placement_site.wsgi:application`): the
  longest importable prefix is imported and the rest looked up with getattr;
- a path in backticks whose first part is one of the checkout's top-level
  directories (`allocations/services.py`, `tests/faults/`): it exists;
- a command: `manage.py NAME` is a Django management command,
  `placement-manage NAME` one of `maintenance.cli.COMMANDS` (or `db`).

A failure lists every name that does not resolve, with its file and line.
"""
import ast
import importlib
import importlib.util
import re
from pathlib import Path

from django.core.management import get_commands

from maintenance.cli import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
# The packages a dotted name may start with: the apps, the kernel, the wiring.
PACKAGES = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests"}
TOP_DIRS = {p.name for p in ROOT.iterdir()
            if p.is_dir() and not p.name.startswith(".") and p.name not in ("site", "build")}
# A dotted name ending so is a file name (`console.css`), not a Python name.
FILE_SUFFIXES = {"py", "md", "css", "js", "svg", "png", "html", "json", "yaml", "yml",
                 "txt", "sh", "conf", "log", "toml", "cfg", "ini", "sqlite3", "sha256"}

FENCE = re.compile(r"^```.*?^```", re.M | re.S)
INLINE = re.compile(r"`([^`\n]+)`")
DOTTED = re.compile(r"(?<![\w./:-])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?::([A-Za-z_]\w*))?")
PATH = re.compile(r"^[\w.-]+(?:/[\w.*-]+)*/?$")
MANAGE = re.compile(r"manage\.py\s+([a-z][a-z_]*)")
PLACEMENT_MANAGE = re.compile(r"placement-manage(?:\s+\[[^\]]*\])*\s+([a-z][a-z-]*)")


def doc_files():
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


# Entry points that start serving when imported (the WSGI module waits for
# the database): their names are looked up in their source instead.
NOT_IMPORTED = {"placement_site.wsgi", "placement_site.gunicorn_hooks", "placement.wsgi.api"}


def _defined_in_source(module_name, names):
    spec = importlib.util.find_spec(module_name)
    if not names:  # the module itself
        return spec is not None
    tree = ast.parse(Path(spec.origin).read_text())
    defined = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
    return len(names) == 1 and names[0] in defined


def _resolves(dotted, attribute=None):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        if module_name in NOT_IMPORTED:
            return _defined_in_source(module_name, parts[cut:] + ([attribute] if attribute else []))
        try:
            obj = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and module_name.startswith(exc.name):
                continue  # not a module: the rest may be attributes
            return False
        for name in parts[cut:] + ([attribute] if attribute else []):
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def _is_project_name(dotted):
    """Whether ``dotted`` names something of this project.  `placement` is
    also the prefix of upstream's error codes and logger names
    (`placement.concurrent_update`, `placement.requestlog`): only a name that
    goes on into one of the `placement` package's modules is the package's."""
    first, _, rest = dotted.partition(".")
    if first == "placement":
        second = rest.split(".")[0]
        return ((ROOT / "placement" / f"{second}.py").exists()
                or (ROOT / "placement" / second).is_dir())
    return first in PACKAGES


def _line_of(text, index):
    return text.count("\n", 0, index) + 1


def unresolved_names(paths):
    """Every name in the files at ``paths`` that does not resolve, as
    ``file:line: kind name`` strings."""
    django_commands = set(get_commands())
    problems = []
    for path in paths:
        text = path.read_text()
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
        # Inline code outside fenced blocks (blanked to keep line numbers).
        prose = FENCE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
        for span in INLINE.finditer(prose):
            code = span.group(1).strip()
            line = _line_of(text, span.start())
            for name in DOTTED.finditer(code):
                dotted, attribute = name.group(1), name.group(2)
                if not _is_project_name(dotted):
                    continue
                if not attribute and dotted.rsplit(".", 1)[1] in FILE_SUFFIXES:
                    continue
                if not _resolves(dotted, attribute):
                    shown = f"{dotted}:{attribute}" if attribute else dotted
                    problems.append(f"{where}:{line}: name {shown}")
            if PATH.match(code) and "/" in code and code.split("/")[0] in TOP_DIRS:
                if not any(ROOT.glob(code.rstrip("/"))):
                    problems.append(f"{where}:{line}: path {code}")
        for match in MANAGE.finditer(text):
            if match.group(1) not in django_commands and match.group(1) != "help":
                problems.append(f"{where}:{_line_of(text, match.start())}: "
                                f"command manage.py {match.group(1)}")
        for match in PLACEMENT_MANAGE.finditer(text):
            if match.group(1) not in COMMANDS and match.group(1) != "db":
                problems.append(f"{where}:{_line_of(text, match.start())}: "
                                f"command placement-manage {match.group(1)}")
    return problems


def test_every_name_in_the_docs_resolves():
    problems = unresolved_names(doc_files())
    assert not problems, "names in the docs that do not resolve:\n" + "\n".join(problems)


def test_the_docs_are_read(tmp_path):
    # The scan finds names in the real pages (an empty scan would pass anything).
    text = "".join(path.read_text() for path in doc_files())
    assert "placement_core.errors" in text and len(doc_files()) > 10


def test_a_planted_page_reports_exactly_its_bad_names(tmp_path):
    page = tmp_path / "planted.md"
    page.write_text(
        "Good: `placement_core.errors.NotFound`, `candidates.explain.explain`,\n"
        "`placement_site.wsgi:application`, `providers/selectors.py`, `tests/faults/`,\n"
        "`console.css`, `placement.conf`, `os.environ`, `manage.py migrate` and\n"
        "`placement-manage [--config-file F] audit`.\n"
        "Bad: `placement_core.errors.NoSuchError`, `allocations.no_such_module`,\n"
        "`providers/no_such_file.py`, `placement_site.wsgi:nothing`.\n"
        "```sh\n"
        "manage.py no_such_command --json\n"
        "placement-manage no-such-command\n"
        "`placement_core.inside_a_fence_is_not_a_name`\n"
        "```\n")
    assert unresolved_names([page]) == [
        "planted.md:5: name placement_core.errors.NoSuchError",
        "planted.md:5: name allocations.no_such_module",
        "planted.md:6: path providers/no_such_file.py",
        "planted.md:6: name placement_site.wsgi:nothing",
        "planted.md:8: command manage.py no_such_command",
        "planted.md:9: command placement-manage no-such-command",
    ]
