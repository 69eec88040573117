"""Aligned text tables for the maintenance commands' output (and the text
renderings in ``planning`` and ``candidates`` they print).

Why our own and not prettytable/tabulate: the commands need only a header
line and left/right-aligned columns cut to a width, which is a screenful of
code; a new runtime dependency would have to be pinned, packaged and kept in
step (requirements.txt, pyproject.toml, tests/deploy/test_dependencies.py)
for it.  The columns are separated by two spaces with no rules, so the
output still reads well when piped into ``grep``, ``sort`` or ``awk``.
"""
# Beyond this a cell is cut with an ellipsis so a row stays within a terminal.
MAX_CELL = 48


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def table(headers, rows, *, right=(), indent="", max_cell=MAX_CELL) -> list[str]:
    """The lines of a table: a header line, then one line per row.

    ``headers``: the column titles; ``rows``: sequences of cells (anything,
    shown with ``str``; None as "-"); ``right``: indexes of the columns to
    align right (numbers).  Trailing blanks are dropped."""
    cells = [[_cut("-" if c is None else str(c), max_cell) for c in row] for row in rows]
    head = [str(h) for h in headers]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(head)]

    def line(values):
        parts = [v.rjust(w) if i in right else v.ljust(w)
                 for i, (v, w) in enumerate(zip(values, widths))]
        return (indent + "  ".join(parts)).rstrip()

    return [line(head)] + [line(r) for r in cells]


def short_uuid(uuid: str) -> str:
    """The start of a uuid, enough to tell rows apart on a screen (the
    whole one is in --json)."""
    return uuid[:8] if uuid else "-"


def when(moment) -> str:
    """A time (a datetime or its ISO text) as "2026-11-27 06:25:57", in
    UTC as stored, without the "T" and the fraction."""
    if moment is None or moment == "":
        return "-"
    text = moment if isinstance(moment, str) else moment.isoformat()
    return text.replace("T", " ")[:19]
