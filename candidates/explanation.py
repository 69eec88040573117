"""What an explanation of a candidates query is, and how it reads as text.

:func:`candidates.explain.explain` builds an :class:`Explanation`; the API
answers it as JSON (``as_dict``), ``explain_candidates`` prints
:func:`as_text`, and the console renders the same objects, writing each
per-class sentence of :data:`CLASS_REASONS` with its amounts in units.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from placement_core.texttable import table
from placement_core.units import human_amount


# The sentences of the per-class failures, their numbers as named fields
# (every number an amount of the class): ``reason`` formats them as plain
# numbers, the console formats the same sentence with each amount in its unit.
CLASS_REASONS = {
    "resource_class_missing": "has no {rc} inventory",
    "min_unit": "asked {asked} {rc} < min_unit {min_unit}",
    "max_unit": "asked {asked} {rc} > max_unit {max_unit}",
    "step_size": "asked {asked} {rc} is not a multiple of step_size {step_size}",
    "capacity": "asked {asked} {rc} > free {free} (capacity {capacity}, used {used})",
}


@dataclass
class Removed:
    uuid: str
    name: str
    reason: str  # a readable sentence with the numbers
    numbers: dict = field(default_factory=dict)  # asked, free, max_unit, ...
    # The class the numbers are amounts of (a CLASS_REASONS failure), else None.
    resource_class: str | None = None


@dataclass
class Reason:
    """One failed constraint of a provider that came closest."""

    kind: str
    reason: str
    numbers: dict = field(default_factory=dict)
    resource_class: str | None = None


@dataclass
class Step:
    """One constraint and the providers (or trees) it removed."""

    constraint: str  # as written in the query, e.g. "resources1=VCPU:6"
    kind: str  # resource_class_missing, capacity, max_unit, ... (see CHECKS)
    removed_count: int
    removed: list  # of Removed, at most SHOW
    left: int  # providers (or trees) still in the running after this step
    resource_class: str | None = None  # the class judged, for per-class steps


@dataclass
class Closest:
    uuid: str
    name: str
    failed: list  # readable reasons, fewest first across providers
    resource_class: str | None = None
    reasons: list = field(default_factory=list)  # of Reason, as ``failed`` with the numbers


@dataclass
class GroupExplanation:
    suffix: str
    query: str  # the group as query parameters
    spread: bool  # the unsuffixed group: classes may come from several providers
    steps: list  # of Step, providers
    providers_left: dict  # class name (or "" for a single-provider group) -> count
    tree_steps: list  # of Step, trees where the group cannot be met
    trees_left: int
    sharing: list  # of dicts: sharing providers this group may draw on
    closest: list  # of Closest


@dataclass
class Explanation:
    query: str
    candidates: int  # allocation requests the API would return
    groups: list  # of GroupExplanation
    steps: list  # of Step, trees removed by request-wide constraints, then limit
    sample: list  # a few allocation requests {provider name: {class: amount}}
    verdict: str

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def as_text(result: Explanation) -> str:
    """The explanation as lines an operator reads in a terminal."""
    lines = [f"query: {result.query}", f"candidates: {result.candidates}"]
    for g in result.groups:
        label = f"group '{g.suffix}'" if g.suffix else "unsuffixed group"
        left = ", ".join(f"{k or 'providers'}: {v}" for k, v in sorted(g.providers_left.items()))
        lines.append(f"{label}: {g.query or '(no filters)'}")
        lines.append(f"  providers left ({left}); trees that can meet it: {g.trees_left}")
        for step in g.steps + g.tree_steps:
            lines += _step_lines(step, "providers" if step in g.steps else "trees")
        for s in g.sharing:
            lines.append(f"  sharing provider {s['name']} ({', '.join(s['classes'])}) "
                         f"reaches {s['trees_reached']} other tree(s) through aggregates")
        if g.closest:
            lines.append("  closest:")
            lines += table(["provider", "class", "why not"], [
                [c.name, c.resource_class or ", ".join(sorted(
                    {r.resource_class for r in c.reasons if r.resource_class})) or "-",
                 "; ".join(in_units(r.kind, r) for r in c.reasons) if c.reasons
                 else "; ".join(c.failed)] for c in g.closest], indent="    ", max_cell=90)
    if result.steps:
        lines.append("whole request:")
        for step in result.steps:
            lines += _step_lines(step, "candidates" if step.kind == "limit" else "trees")
    for sample in result.sample:
        lines.append("  e.g. " + "; ".join(
            f"{name} ({', '.join(f'{rc} {human_amount(n, rc)}' for rc, n in sorted(res.items()))})"
            for name, res in sample.items()))
    lines.append(result.verdict)
    return "\n".join(lines) + "\n"


def _step_lines(step: Step, what: str) -> list:
    cls = f" [{step.resource_class}]" if step.resource_class else ""
    out = [f"  {step.constraint}{cls} ({step.kind}): removed {step.removed_count} {what}, "
           f"{step.left} left"]
    if step.removed:
        out += table(["provider", "why"], [[r.name, in_units(step.kind, r)] for r in step.removed],
                     indent="    ", max_cell=90)
    if step.removed_count > len(step.removed) and step.kind != "limit":
        out.append(f"    ... and {step.removed_count - len(step.removed)} more")
    return out


def in_units(kind: str, item) -> str:
    """A per-class failure's sentence (:data:`CLASS_REASONS`) with each
    amount in its class's unit, as the console writes it; any other reason
    as it is."""
    sentence = CLASS_REASONS.get(kind)
    rc = getattr(item, "resource_class", None)
    if sentence is None or not rc:
        return item.reason
    try:
        return sentence.format(rc=rc, **{name: human_amount(value, rc)
                                         for name, value in (item.numbers or {}).items()})
    except (KeyError, IndexError):  # numbers missing: the plain sentence
        return item.reason
