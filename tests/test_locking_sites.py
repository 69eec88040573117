"""One module locks providers and consumers and bumps generations.

The locking protocol (docs/architecture.md) is only as good as its
weakest writer: a second place that takes a provider lock in another
order, or bumps a generation its own way, is where a deadlock or a lost
update comes from.  So every ``select_for_update`` / ``FOR UPDATE`` and
every generation increment in the project's code is in
``providers/locking.py``, except the locks on rows that are no provider
or consumer (listed here by model).
"""
import ast
import re

from tests.support.layout import project_files

LOCKING = "providers/locking.py"
# Rows locked for reasons of their own, never together with providers.
OTHER_LOCKS = {"JobLock", "ResourceClass", "Trait", "LoginFailure"}
BUMP = re.compile(r"""generation\s*(\+=|\+\s*\d|=\s*F\(|\+\s*%s)|F\(\s*["']generation["']\s*\)\s*\+""")


def _receiver(node):
    """The name at the start of a chain like ``Model.objects.filter().select_for_update``."""
    while isinstance(node, (ast.Attribute, ast.Call)):
        node = node.value if isinstance(node, ast.Attribute) else node.func
    return node.id if isinstance(node, ast.Name) else None


def sites(relative, source):
    """(line, what) for each lock or generation bump of ``source`` outside the locking module."""
    if relative == LOCKING:
        return []
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Attribute) and node.attr == "select_for_update"
                and _receiver(node.value) not in OTHER_LOCKS):
            found.append((node.lineno, "select_for_update"))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and "FOR UPDATE" in node.value.upper() and "SELECT" in node.value.upper()
              and not _is_docstring_like(node.value)):
            found.append((node.lineno, "FOR UPDATE"))
    for number, line in enumerate(source.splitlines(), 1):
        if BUMP.search(line) and not line.lstrip().startswith("#"):
            found.append((number, "generation bump"))
    return sorted(found)


def _is_docstring_like(text):
    # Prose that mentions the clause (docstrings, comments in strings) is
    # several lines or a sentence; an executed statement starts with it.
    return not text.lstrip().upper().startswith(("SELECT", " FOR UPDATE", "FOR UPDATE"))


def test_locks_and_generation_bumps_live_in_the_locking_module():
    found = [f"{relative}:{line} {what}"
             for relative, source in project_files()
             for line, what in sites(relative, source)]
    assert found == []


def test_the_check_catches_a_lock_or_a_bump_elsewhere():
    planted = (
        "from django.db.models import F\n"
        "def write(pk):\n"
        "    ResourceProvider.objects.select_for_update().filter(pk=pk)\n"
        "    ResourceProvider.objects.filter(pk=pk).update(generation=F('generation') + 1)\n"
        "    cursor.execute('SELECT id FROM resource_providers WHERE id = %s FOR UPDATE', [pk])\n"
        "    consumer.generation += 1\n"
        "    JobLock.objects.select_for_update().filter(name='x')\n"
    )
    assert sites("allocations/services.py", planted) == [
        (3, "select_for_update"), (4, "generation bump"), (5, "FOR UPDATE"),
        (6, "generation bump")]
    assert sites(LOCKING, planted) == []
