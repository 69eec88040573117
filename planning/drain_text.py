"""The drain what-if as text, for ``manage.py drain_what_if`` (the console
renders the same ``DrainResult`` with its templates)."""
import textwrap
from collections import defaultdict

from placement_core.texttable import short_uuid, table
from placement_core.units import human_amount, resources_text, used_of
from planning.drain import DrainResult


def as_text(result: DrainResult, *, show=20) -> str:
    """The verdict, then tables: where each consumer would go (a row per
    provider it holds, beside where that part lands), why the others do not
    fit, and the fullest providers after; amounts in each class's unit."""
    named = (", ".join(d["name"] for d in result.drained[:show])
             + (" ..." if len(result.drained) > show else ""))
    lines = textwrap.wrap(f"drain: {len(result.drained)} provider(s): {named}", 100,
                          subsequent_indent="  ") + [
        f"consumers to move: {result.consumers}; placed {len(result.placed)}, "
        f"not placed {len(result.not_placed)}; target trees: {result.targets}",
        "verdict: " + ("FITS" if result.fits else "DOES NOT FIT"),
    ]
    if result.not_placed:
        lines += ["", "not placed:"]
        # One sentence per reason, its consumers under it (not the sentence per consumer).
        by_reason = {}
        for move in result.not_placed[:show]:
            by_reason.setdefault(move.reason["text"], []).append(move)
        for text, moves in by_reason.items():
            lines += textwrap.wrap(text + ":", 100, initial_indent="  ", subsequent_indent="  ")
            lines += table(["consumer", "holds on", "resources"],
                           [[short_uuid(m.consumer), ", ".join(e["name"] for e in m.holds),
                             resources_text(_summed(m.holds))] for m in moves],
                           indent="    ", max_cell=56)
        if len(result.not_placed) > show:
            lines.append(f"  ... {len(result.not_placed) - show} more")
    if result.placed:
        lines += ["", "placed:"]
        rows = []
        for move in result.placed[:show]:
            for i, (source, target, amounts) in enumerate(_pairs(move)):
                rows.append([short_uuid(move.consumer) if i == 0 else "", source,
                             resources_text(amounts), target])
        lines += table(["consumer", "from", "resources", "to"], rows, indent="  ", max_cell=60)
        if len(result.placed) > show:
            lines.append(f"  ... {len(result.placed) - show} more")
    lines += ["", "fullest providers after:"]
    lines += table(["provider", "class", "used", "use", "was"],
                   [[f["name"], f["resource_class"],
                     used_of(f["used"], f["capacity"], f["resource_class"]),
                     f"{f['percent']:g}%", human_amount(f["used_before"], f["resource_class"])]
                    for f in result.fullest_after], indent="  ", right=(3, 4))
    lines.append(f"took {result.took_ms} ms")
    return "\n".join(lines) + "\n"


def _summed(entries) -> dict:
    total = defaultdict(int)
    for e in entries:
        for rc, n in e["resources"].items():
            total[rc] += n
    return dict(sorted(total.items()))


def _pairs(move):
    """(from, to, amounts) per provider a placed consumer holds: the part it
    holds there beside the provider the same part lands on ("(stays)" for a
    sharing provider it keeps)."""
    targets = list(move.to)
    out = []
    for held in move.holds:
        match = next((t for t in targets if t["resources"] == held["resources"]), None)
        if match is not None:
            targets.remove(match)
        out.append((held["name"], match["name"] if match else "(stays)", held["resources"]))
    out += [("", t["name"], t["resources"]) for t in targets]
    return out
