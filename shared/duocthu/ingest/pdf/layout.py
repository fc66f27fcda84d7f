"""A PDF page as lines in reading order, each with its provenance (page, column, position).

pdfplumber gives characters with font, size and position. The page is cut geometrically: a line
with characters in the gutter spans both columns and closes a band; inside a band the left column
is read before the right one, whatever order the content stream wrote them in. Ruled tables
(pdfplumber's `find_tables`) are items of their own, full width; so is each image (`page.images`),
in the column it stands in: a figure, never text.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from duocthu.ingest.pdf.repair import decode_tcvn3, is_tcvn3_font, map_symbols, nfc, rejoin_syllables

HEADER_BAND = 62.0  # points from the top: the running header lives above this
GUTTER_HALF = 6.0  # a character this close to the page's middle belongs to a full-width line
_NUMBER = re.compile(r"^\d{1,4}$")

Char = dict[str, Any]


@dataclass
class Line:
    page: int  # PDF page index, 1-based
    printed: int | None  # the page number printed in the running header
    column: str  # "L", "R" or "S" (spanning both)
    x0: float
    top: float
    text: str
    bold: bool
    size: float
    indent: float = 0.0  # x0 minus the column's left edge on this page
    rows: list[list[str]] | None = None  # a table's cells
    figure: bool = False  # an image on the page
    where: str = field(default="")  # drug_id/section_key it went to (debug output)

    def provenance(self) -> dict[str, object]:
        return {
            "page": self.page,
            "printed": self.printed,
            "column": self.column,
            "x0": round(self.x0, 1),
            "top": round(self.top, 1),
            "bold": self.bold,
            "size": self.size,
            "kind": "table" if self.rows is not None else "figure" if self.figure else "text",
            "text": self.text,
            "where": self.where,
        }


def _is_bold(fontname: str) -> bool:
    return "bold" in fontname.split("+", 1)[-1].lower()


def _char_text(char: Char) -> str:
    text = str(char["text"])
    return decode_tcvn3(text) if is_tcvn3_font(str(char["fontname"])) else text


def line_text(chars: list[Char]) -> str:
    """Characters of one line, left to right (content order kept for ties: combining marks)."""
    out: list[str] = []
    last_x1: float | None = None
    for char in sorted(chars, key=lambda c: c["x0"]):
        text = _char_text(char)
        gap = char["x0"] - last_x1 if last_x1 is not None else 0.0
        if out and out[-1] != " " and text != " " and gap > 0.25 * float(char["size"]):
            out.append(" ")  # a gap with no space character drawn
        out.append(text)
        last_x1 = max(last_x1 or 0.0, float(char["x1"]))
    text = re.sub(r"\s+", " ", nfc(map_symbols("".join(out)))).strip()
    return rejoin_syllables(text)


def _make_line(chars: list[Char], page: int, printed: int | None, column: str) -> Line:
    letters = [c for c in chars if str(c["text"]).strip()]
    # Accented letters may come from another font than their word ("bold broken mid-word"), so
    # the plain Latin letters decide, by majority; a line of accented letters only counts all.
    plain = [c for c in letters if str(c["text"]).isascii() and str(c["text"]).isalpha()] or letters
    bold = sum(_is_bold(str(c["fontname"])) for c in plain) * 2 > len(plain)
    size = Counter(round(float(c["size"]), 1) for c in letters).most_common(1)[0][0]
    return Line(
        page,
        printed,
        column,
        min(c["x0"] for c in chars),
        min(c["top"] for c in chars),
        line_text(chars),
        bold,
        size,
    )


def _rows(chars: list[Char]) -> list[list[Char]]:
    """Characters grouped by baseline."""
    rows: dict[float, list[Char]] = {}
    for char in chars:
        base = round(float(char["matrix"][5]) if char.get("matrix") else float(char["bottom"]), 0)
        rows.setdefault(base, []).append(char)
    return [rows[k] for k in sorted(rows, reverse=True)]


def printed_number(header: list[Char]) -> int | None:
    tokens = line_text(header).split()
    numbers = [t for t in (tokens[:1] + tokens[-1:]) if _NUMBER.match(t)]
    return int(numbers[0]) if numbers else None


def _inside(char: Char, box: tuple[float, float, float, float]) -> bool:
    x0, top, x1, bottom = box
    return bool(
        x0 - 1 <= char["x0"]
        and char["x1"] <= x1 + 1
        and top - 1 <= char["top"]
        and char["bottom"] <= bottom + 1
    )


def page_chars(page: Any) -> list[Char]:
    """The page's characters from pdfminer's layout objects, with the fields used here.

    pdfplumber's own `page.chars` resolves every graphic-state attribute of every character,
    about half of the conversion's time on a dense page; this reads the same layout once.
    """
    from pdfminer.layout import LTChar, LTContainer

    height = float(page.height)
    out: list[Char] = []
    stack = [page.layout]
    while stack:
        node = stack.pop()
        for obj in node:
            if isinstance(obj, LTChar):
                out.append(
                    {
                        "text": obj.get_text(),
                        "fontname": obj.fontname,
                        "size": obj.size,
                        "x0": obj.x0,
                        "x1": obj.x1,
                        "top": height - obj.y1,
                        "bottom": height - obj.y0,
                        "matrix": obj.matrix,
                    }
                )
            elif isinstance(obj, LTContainer):
                stack.append(obj)
    return out


def page_lines(page: Any, index: int) -> list[Line]:
    """The page's lines (and tables) in reading order; [] for a page without a text layer."""
    chars = page_chars(page)
    header = [c for c in chars if c["top"] < HEADER_BAND]
    printed = printed_number(header) if header else None
    body = [c for c in chars if c["top"] >= HEADER_BAND]
    tables = page.find_tables() if page.rects or page.lines else []  # only ruled tables
    items: list[Line] = []
    for table in tables:
        rows = [[re.sub(r"\s+", " ", nfc(cell or "")).strip() for cell in row] for row in table.extract()]
        x0, top = table.bbox[0], table.bbox[1]
        items.append(
            Line(index, printed, "S", x0, top, " | ".join(rows[0]) if rows else "", False, 0.0, rows=rows)
        )
        body = [c for c in body if not _inside(c, table.bbox)]
    mid = float(page.width) / 2
    columns: dict[str, list[Line]] = {"L": [], "R": []}
    for image in page.images:
        x0, x1, top = float(image["x0"]), float(image["x1"]), float(image["top"])
        side = "S" if x0 < mid + GUTTER_HALF and x1 > mid - GUTTER_HALF else "L" if x1 <= mid else "R"
        size = f"[image {x1 - x0:.0f}x{float(image['bottom']) - top:.0f} pt]"  # names it in the debug output
        figure = Line(index, printed, side, x0, top, size, False, 0.0, figure=True)
        (items if side == "S" else columns[side]).append(figure)
    for row in _rows(body):
        if any(c["x0"] < mid + GUTTER_HALF and c["x1"] > mid - GUTTER_HALF for c in row):
            items.append(_make_line(row, index, printed, "S"))
            continue
        for side, part in (
            ("L", [c for c in row if c["x1"] <= mid]),
            ("R", [c for c in row if c["x0"] >= mid]),
        ):
            if any(str(c["text"]).strip() for c in part):
                columns[side].append(_make_line(part, index, printed, side))
    for lines in columns.values():
        left_edge = min((ln.x0 for ln in lines), default=0.0)
        for ln in lines:
            ln.indent = ln.x0 - left_edge
    return _reading_order(sorted(items, key=lambda ln: ln.top), columns)


def _reading_order(spanning: list[Line], columns: dict[str, list[Line]]) -> list[Line]:
    out: list[Line] = []
    above = float("-inf")
    for band_end in [*(s.top for s in spanning), float("inf")]:
        for side in ("L", "R"):
            out += sorted((ln for ln in columns[side] if above <= ln.top < band_end), key=lambda ln: ln.top)
        out += [s for s in spanning if s.top == band_end]
        above = band_end
    return out
