"""manage.py provider_tree [--root UUID] --format text|dot|json: export the provider forest."""
import json

from django.core.management.base import CommandError

from allocations.selectors import provider_forest
from maintenance.base import EXIT_ERROR, EXIT_OK, MaintenanceCommand
from placement_core import errors
from providers.selectors import DISABLED_TRAIT


class Command(MaintenanceCommand):
    own_json = True
    help = (
        "Print every provider of every tree (or of the tree holding --root) with its inventory, "
        "usage and consumer count (and disabled hosts, COMPUTE_STATUS_DISABLED on the root, marked): as an indented text tree, as a Graphviz digraph "
        "(`... --format dot | dot -Tsvg > forest.svg`) or as JSON. Exit codes: 0, 2 error."
    )

    def add_arguments(self, parser):
        parser.add_argument("--root", metavar="UUID",
                            help="only the tree holding this provider (a root or any member)")
        parser.add_argument("--format", choices=("text", "dot", "json"), default="text")
        parser.add_argument("--json", dest="as_json", action="store_true",
                            help="the same as --format json")

    def run(self, *, root=None, format="text", as_json=False, **options):
        if as_json:
            format = "json"
        try:
            nodes = provider_forest(root_uuid=root)
        except errors.NotFound:
            raise CommandError(f"no resource provider {root!r}", returncode=EXIT_ERROR)
        render = {"text": _text, "dot": _dot, "json": _json}[format]
        self.stdout.write(render(nodes), ending="")
        return EXIT_OK


def _amounts(node) -> list:
    return [f"{rc} {inv['used']}/{inv['capacity']}" for rc, inv in node.inventories.items()]


def _text(nodes) -> str:
    lines = []
    for n in nodes:
        detail = ", ".join(_amounts(n)) or "no inventory"
        consumers = f"; {n.consumers} consumer{'s' if n.consumers != 1 else ''}" if n.consumers else ""
        served = len(n.shares_with)
        shares = f"; shares with {served} tree{'s' if served != 1 else ''}" if served else ""
        lines.append(f"{'  ' * n.depth}{n.name} {n.uuid}: {detail}{consumers}{shares}"
                     + (f"; {_disabled(n)}" if n.disabled else ""))
    return "".join(line + "\n" for line in lines) if lines else "no resource providers\n"


def _disabled(node) -> str:
    """Why the node is out of scheduling, naming the trait (the rule:
    providers.selectors.DISABLED_TRAIT on the tree's root)."""
    where = "" if node.depth == 0 else " on its root"
    return f"disabled ({DISABLED_TRAIT}{where})"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _dot(nodes) -> str:
    # One cluster-free digraph, parent -> child, as osc-placement-tree draws
    # it; a sharing provider also points, dashed, at each root it serves.
    lines = ["digraph placement {", "  rankdir=TB;", "  node [shape=box, fontname=monospace];"]
    for n in nodes:
        label = "\\n".join([n.name.replace("\\", "\\\\").replace('"', '\\"'), n.uuid]
                           + _amounts(n)
                           + ([f"consumers {n.consumers}"] if n.consumers else [])
                           + ([_disabled(n)] if n.disabled else []))
        style = ", style=dashed, color=gray50" if n.disabled else ""
        lines.append(f'  {_quote(n.uuid)} [label="{label}"{style}];')
    for n in nodes:
        if n.parent_uuid:
            lines.append(f"  {_quote(n.parent_uuid)} -> {_quote(n.uuid)};")
    for n in nodes:
        for root in n.shares_with:
            lines.append(f'  {_quote(n.uuid)} -> {_quote(root)} [style=dashed, label="shares"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _json(nodes) -> str:
    return json.dumps({"resource_providers": [vars(n) for n in nodes]}, indent=2) + "\n"
