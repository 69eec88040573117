"""manage.py provider_tree [--root UUID] --format text|dot|json: export the provider forest."""
import json

from allocations.selectors import provider_forest
from maintenance.base import EXIT_OK, MaintenanceCommand
from placement_core.texttable import table
from placement_core.units import human_amount
from providers.references import provider_by_ref
from providers.selectors import DISABLED_TRAIT


class Command(MaintenanceCommand):
    own_json = True
    help = (
        "Print every provider of every tree (or of the tree holding --root) with its inventory, "
        "usage and consumer count (and disabled hosts, COMPUTE_STATUS_DISABLED on the root, "
        "marked): as a table, the tree by indentation, amounts in the class's unit, as a "
        "Graphviz digraph "
        "(`... --format dot | dot -Tsvg > forest.svg`) or as JSON. Exit codes: 0, 2 error."
    )

    def add_arguments(self, parser):
        parser.add_argument("--root", metavar="UUID_OR_NAME",
                            help="only the tree holding this provider (a root or any member; "
                                 "uuid or name)")
        parser.add_argument("--format", choices=("text", "dot", "json"), default="text")
        parser.add_argument("--json", dest="as_json", action="store_true",
                            help="the same as --format json")

    def run(self, *, root=None, format="text", as_json=False, **options):
        if as_json:
            format = "json"
        if root is not None:
            root = provider_by_ref(root).uuid
        nodes = provider_forest(root_uuid=root)
        render = {"text": _text, "dot": _dot, "json": _json}[format]
        self.stdout.write(render(nodes), ending="")
        return EXIT_OK


def _amounts(node) -> list:
    return [f"{rc} {inv['used']}/{inv['capacity']}" for rc, inv in node.inventories.items()]


def _text(nodes) -> str:
    """One row per provider and class, the tree by indentation, each amount
    in its class's unit (the uuids are in --format json and dot)."""
    if not nodes:
        return "no resource providers\n"
    rows = []
    for n in nodes:
        notes = []
        if n.shares_with:
            served = len(n.shares_with)
            notes.append(f"shares with {served} tree{'s' if served != 1 else ''}")
        if n.disabled:
            notes.append(_disabled(n))
        name = f"{'  ' * n.depth}{n.name}"
        classes = list(n.inventories.items()) or [(None, None)]
        for i, (rc, inv) in enumerate(classes):
            first = i == 0
            if rc is None:
                cells = ["(no inventory)", "", "", ""]
            else:
                percent = f"{100 * inv['used'] / inv['capacity']:.0f}%" if inv["capacity"] else "-"
                cells = [rc, human_amount(inv["used"], rc), human_amount(inv["capacity"], rc),
                         percent]
            rows.append([name if first else "", *cells,
                         (n.consumers or "") if first else "", "; ".join(notes) if first else ""])
    return "".join(line + "\n" for line in table(
        ["provider", "class", "used", "capacity", "use", "consumers", "note"], rows,
        right=(2, 3, 4, 5)))


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
