"""Reading figures back out of the console's pages: tables by id as rows of
cells (text with tags stripped, plus the raw amounts of the ``amount``
spans), CSV downloads as dicts, and the page's unit formatting undone."""
import csv
import io
import re
from html.parser import HTMLParser

# The console's units (console/templatetags): the size of each in the class's own unit.
UNIT_SIZES = {"MiB": 1, "GiB": 1024, "TiB": 1024 * 1024, "kbit/s": 1, "Mbit/s": 1000,
              "Gbit/s": 1_000_000}
DISK_SIZES = {"GiB": 1, "TiB": 1024}


class Cell:
    def __init__(self):
        self.parts = []
        self.raws = []  # data-sort of every span.amount in the cell, in order
        self.pcts = []  # data-sort of every span.pct-value

    @property
    def text(self):
        return re.sub(r"\s+", " ", "".join(self.parts)).strip()

    def __repr__(self):
        return f"Cell({self.text!r}, raws={self.raws})"


class _Tables(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables = {}
        self.stack = []  # [table id, rows]
        self.row = None
        self.cell = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            rows = []
            self.stack.append(rows)
            self.tables.setdefault(attrs.get("id") or f"_anon{len(self.tables)}", rows)
        elif tag == "tr" and self.stack:
            self.row = []
            self.stack[-1].append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = Cell()
            self.row.append(self.cell)
        elif tag == "span" and self.cell is not None:
            classes = (attrs.get("class") or "").split()
            if "amount" in classes:
                self.cell.raws.append(int(float(attrs["data-sort"])) if float(
                    attrs["data-sort"]).is_integer() else float(attrs["data-sort"]))
            if "tag" in classes:
                self.cell.parts.append(" ")
            if "pct-value" in classes:
                self.cell.pcts.append(float(attrs["data-sort"]))
        elif tag in ("div", "br", "li", "p") and self.cell is not None:
            self.cell.parts.append(" ")
        elif tag == "title" and self.cell is not None:
            self.cell.parts.append("\0")  # an SVG title is not the cell's text

    def handle_endtag(self, tag):
        if tag == "table" and self.stack:
            self.stack.pop()
            self.row = self.cell = None
        elif tag in ("td", "th"):
            self.cell = None
        elif tag == "title" and self.cell is not None:
            # Drop what the <title> held (the bar's hover text).
            text = "".join(self.cell.parts)
            self.cell.parts = [text[:text.rfind("\0")]] if "\0" in text else [text]

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.parts.append(data)


def tables(html: str) -> dict:
    parser = _Tables()
    parser.feed(html)
    return parser.tables


def table(html: str, table_id: str, header=True) -> list:
    """The body rows of a table, each a list of Cells."""
    rows = tables(html)[table_id]
    return rows[1:] if header else rows


def by_first(rows) -> dict:
    """Rows keyed by the text of their first cell."""
    return {row[0].text: row for row in rows}


def text_of(html: str, element_id: str) -> str:
    """The text of the element with this id (tags stripped)."""
    start = html.index(f'id="{element_id}"')
    start = html.index(">", start) + 1
    tag = html[:start].rsplit("<", 1)[1].split()[0]
    end = html.index(f"</{tag}>", start)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html[start:end])).strip()


def number(text: str) -> float:
    """A count as shown ("12,000", "133.3 %")."""
    return float(text.replace(",", "").replace("%", "").strip())


def shown_amount(text: str, resource_class: str) -> float:
    """An amount as the page shows it, back in the class's own unit."""
    text = text.strip()
    m = re.fullmatch(r"(-?[\d,]+(?:\.\d+)?)(?: (\S+))?", text)
    assert m, f"not an amount: {text!r}"
    value = float(m.group(1).replace(",", ""))
    unit = m.group(2)
    if unit is None:
        return value
    sizes = DISK_SIZES if resource_class == "DISK_GB" else UNIT_SIZES
    return value * sizes[unit]


def agrees(text: str, resource_class: str, right: int) -> bool:
    """Whether ``text`` shows ``right`` to the precision it is shown with
    (a whole unit, or one decimal of it)."""
    shown = shown_amount(text, resource_class)
    m = re.search(r"(\S+)$", text.strip())
    unit = m.group(1) if not re.fullmatch(r"-?[\d,.]+", m.group(1)) else None
    size = 1 if unit is None else (DISK_SIZES if resource_class == "DISK_GB"
                                   else UNIT_SIZES)[unit]
    tolerance = 0 if "." not in text else size * 0.05
    return abs(shown - right) <= tolerance + 1e-9


def csv_rows(response) -> list[dict]:
    body = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(body)))
