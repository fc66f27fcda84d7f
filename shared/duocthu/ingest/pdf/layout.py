"""A PDF page as lines in reading order, each with its provenance (page, column, position), and
the page numbers its running head or foot prints.

pdfminer's layout (through pdfplumber) gives characters with font, size and position, images and
rules. The columns are found from the text's own gaps (`_gutter`); a row whose text crosses the
split spans both columns and closes a band; inside a band the left column is read before the
right one, whatever order the content stream wrote them in. Ruled tables (pdfplumber's
`find_tables`) and images are items of their own, in the column they stand in or spanning.
"""

from __future__ import annotations

import bisect
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from duocthu.ingest.pdf.columns import Char, _column, _column_names, _letters, _splits, _x0, spans
from duocthu.ingest.pdf.repair import (
    decode_tcvn3,
    is_tcvn3_font,
    legacy_code_text,
    map_symbols,
    nfc,
    rejoin_syllables,
)

HEADER_BAND = 62.0  # points from the top: where the brand index's title is looked for below
_NUMBER = re.compile(r"^\d{1,4}$")
WORD_GAP = 0.15  # a gap between letters wider than this share of their size is a word space
CELL_GAP = 1.2  # wider than this many times their size: two cells of a table (no word space is)


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
    bold_lead: str = ""  # the line's leading bold words: a run-in heading's label ("Chỉ định: …")
    size_lead: str = ""  # the line's leading words in another size than its end: a label's evidence
    where: str = field(default="")  # drug_id/section_key it went to (debug output)
    x1: float = 0.0
    # the line's pieces (x0, x1, text) split at gaps wider than CELL_GAP, when there are several:
    # the cells of a table printed without rules (`loose_table`)
    cells: tuple[tuple[float, float, str], ...] = ()

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


@cache
def _is_bold(fontname: str) -> bool:
    return "bold" in fontname.split("+", 1)[-1].lower()


def _char_text(char: Char) -> str:
    text = str(char["text"])
    return decode_tcvn3(text) if is_tcvn3_font(str(char["fontname"])) else text


def line_text(chars: list[Char]) -> str:
    """Characters of one line, left to right (content order kept for ties: combining marks)."""
    return _ordered_text(sorted(chars, key=_x0))


def _ordered_text(ordered: list[Char]) -> str:
    out: list[str] = []
    last_x1: float | None = None
    last = len(ordered) - 1
    for n, char in enumerate(ordered):
        text = _char_text(char)
        x0 = char["x0"]
        if text.isspace() and n < last and ordered[n + 1]["x0"] < x0 + 0.5 * (char["x1"] - x0):
            continue  # a space the next letter is drawn over (Chromium writes one at each soft hyphen)
        # a gap with no space character drawn: TeX's justified lines shrink a word space to a fifth
        # of the size, kerning between letters stays far below that
        if out and out[-1] != " " and text != " " and x0 - last_x1 > WORD_GAP * char["size"]:
            out.append(" ")
        out.append(text)
        last_x1 = char["x1"] if last_x1 is None or char["x1"] > last_x1 else last_x1
    text = _SPACES.sub(" ", nfc(map_symbols("".join(out)))).strip()
    return rejoin_syllables(text)


_SPACES = re.compile(r"\s+")


def _make_line(chars: list[Char], page: int, printed: int | None, column: str) -> Line:
    ordered = sorted(chars, key=_x0)
    letters = [c for c in ordered if c["text"].strip()]
    # Accented letters may come from another font than their word ("bold broken mid-word"), so
    # the plain Latin letters decide, by majority; a line of accented letters only counts all.
    plain = [c for c in letters if c["text"].isascii() and c["text"].isalpha()] or letters
    bold = sum(_is_bold(c["fontname"]) for c in plain) * 2 > len(plain)
    sizes: dict[float, int] = {}
    for c in letters:
        key = round(float(c["size"]), 1)
        sizes[key] = sizes.get(key, 0) + 1
    size = max(sizes, key=sizes.__getitem__)  # the most common; the first seen on a tie, as Counter
    text = _ordered_text(ordered)
    return Line(
        page,
        printed,
        column,
        min(c["x0"] for c in chars),
        min(c["top"] for c in chars),
        text,
        bold,
        size,
        bold_lead=_bold_lead(ordered, text),
        size_lead=_size_lead(letters),
        x1=max(c["x1"] for c in chars),
        cells=_cells(letters),
    )


def _cells(letters: list[Char]) -> tuple[tuple[float, float, str], ...]:
    """The line's pieces split at gaps wider than CELL_GAP (letters left to right), if several."""
    pieces: list[list[Char]] = []
    right = 0.0
    for char in letters:
        if not pieces or char["x0"] - right > CELL_GAP * char["size"]:
            pieces.append([])
        pieces[-1].append(char)
        right = max(right, char["x1"]) if len(pieces[-1]) > 1 else char["x1"]
    if len(pieces) < 2:
        return ()
    return tuple((p[0]["x0"], max(c["x1"] for c in p), _ordered_text(p)) for p in pieces)


def _bold_lead(ordered: list[Char], whole: str) -> str:
    """The text up to the first plain Latin letter in a regular font (accents and punctuation may
    come from any font: weight is decided by the letters); `ordered`: the line's characters left
    to right, `whole` its text."""
    for n, char in enumerate(ordered):
        text = char["text"]
        if text.isascii() and text.isalpha() and not _is_bold(char["fontname"]):
            lead = ordered[:n]
            return _ordered_text(lead) if any(_is_bold(c["fontname"]) for c in lead) else ""
    return whole if any(_is_bold(c["fontname"]) for c in ordered) else ""


def _size_lead(letters: list[Char]) -> str:
    """The line's leading letters set in another size than its last letter (a label set apart by
    size), up to the first letter in the line's own size; "" when the line starts in that size."""
    if not letters or abs(letters[0]["size"] - letters[-1]["size"]) <= 0.5:
        return ""
    end = next(n for n, c in enumerate(letters) if abs(c["size"] - letters[-1]["size"]) <= 0.5)
    return _ordered_text(letters[:end])


def _rows(chars: list[Char]) -> list[list[Char]]:
    """Characters grouped by baseline."""
    rows: dict[float, list[Char]] = {}
    for char in chars:
        matrix = char.get("matrix")
        base = round(matrix[5] if matrix else char["bottom"], 0)
        rows.setdefault(base, []).append(char)
    return [rows[k] for k in sorted(rows, reverse=True)]


_ROMAN = re.compile(r"^(?=[ivxlc]+$)c{0,3}(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$", re.IGNORECASE)


def folio_candidates(tokens: list[str]) -> tuple[list[int], list[str]]:
    """The page numbers a running head or foot may print: its first or last token, arabic or roman
    (front matter), wherever the line sits (left, right or centre)."""
    ends = list(dict.fromkeys([*tokens[:1], *tokens[-1:]]))
    return [int(t) for t in ends if _NUMBER.match(t)], [t for t in ends if _ROMAN.match(t)]


def _margin_rows(rows: list[list[Char]], height: float) -> tuple[list[Char] | None, list[Char] | None]:
    """The running head (the top row) and the foot (the bottom row), when the page has them.

    A margin row lies in the outer eighth of the page, apart from the body by a gap at least half
    its own height, and is smaller than the body text or prints a page number at an end: a title
    page's big first line is no running head.
    """
    filled = [r for r in rows if _letters(r)]
    if len(filled) == 1 and all(_NUMBER.match(t) or _ROMAN.match(t) for t in line_text(filled[0]).split()):
        return None, filled[0]  # a page with nothing but its number
    if len(filled) < 2:
        return None, None
    letter_rows = [_letters(r) for r in filled]
    body_size = Counter(round(float(c["size"])) for r in letter_rows for c in r).most_common(1)[0][0]
    # A margin row stands further from the body than a column's lines stand from each other (with
    # generous leading, a column's last line ending in a number is no foot). Gaps are measured to
    # the nearest row that shares some width: two columns' rows interleave when their baselines differ.
    boxes = [
        (
            min(c["top"] for c in r),
            max(c["bottom"] for c in r),
            min(c["x0"] for c in r),
            max(c["x1"] for c in r),
        )
        for r in letter_rows
    ]

    def gap(i: int, step: int) -> float | None:
        j = i + step
        while 0 <= j < len(boxes):
            if boxes[j][2] < boxes[i][3] and boxes[i][2] < boxes[j][3]:
                return float(boxes[j][0] - boxes[i][1] if step > 0 else boxes[i][0] - boxes[j][1])
            j += step
        return None

    gaps = [g for i in range(len(boxes) - 1) if (g := gap(i, 1)) is not None]
    usual = statistics.median(gaps) if len(gaps) >= 4 else 0.0  # too few lines to tell

    def is_margin(i: int, top: bool) -> bool:
        y0, y1 = boxes[i][0], boxes[i][1]
        if (y1 > height / 8) if top else (y0 < height * 7 / 8):
            return False
        near = gap(i, 1 if top else -1)
        numbers, romans = folio_candidates(line_text(filled[i]).split())
        small = max(float(c["size"]) for c in letter_rows[i]) < body_size - 0.5
        apart = near is None or near >= max(0.5 * (y1 - y0), 1.5 * usual)
        return apart and (small or bool(numbers or romans))

    head = filled[0] if is_margin(0, True) else None
    foot = filled[-1] if is_margin(len(filled) - 1, False) and filled[-1] is not head else None
    return head, foot


@dataclass
class PageRead:
    """One page's lines in reading order and the page numbers its margins print."""

    index: int
    lines: list[Line]
    numbers: list[int]
    romans: list[str]
    has_text: bool = True

    def set_printed(self, printed: int | None) -> None:
        for line in self.lines:
            line.printed = printed


def _inside(char: Char, box: tuple[float, float, float, float]) -> bool:
    x0, top, x1, bottom = box
    return bool(
        x0 - 1 <= char["x0"]
        and char["x1"] <= x1 + 1
        and top - 1 <= char["top"]
        and char["bottom"] <= bottom + 1
    )


def _collector(rsrcmgr: Any, pageno: int, height: float) -> Any:
    """pdfminer's page aggregator that keeps each horizontal character as the small dict used
    here instead of a layout object: building LTChar objects (their bounding-box matrix products,
    colour spaces and graphic states) was a fifth of the reading time."""
    from pdfminer.converter import PDFPageAggregator

    class Collector(PDFPageAggregator):
        chars: list[Char]
        page_height: float
        glyphs: dict[tuple[int, int], tuple[str, float, float]]

        def render_char(
            self, matrix: Any, font: Any, fontsize: float, scaling: float, rise: float, cid: int, *rest: Any
        ) -> float:
            if font.is_vertical():
                return float(super().render_char(matrix, font, fontsize, scaling, rise, cid, *rest))
            glyph = self.glyphs.get((id(font), cid))
            if glyph is None:  # a glyph's text, advance and descent are the font's: looked up once
                text = legacy_code_text(font.fontname, cid, font.unicode_map is not None, font.is_multibyte())
                try:
                    text = text if text is not None else font.to_unichr(cid)
                except Exception:  # pdfminer's PDFUnicodeNotDefined and kin: its own fallback
                    text = self.handle_undefined_char(font, cid)
                glyph = self.glyphs[(id(font), cid)] = (text, font.char_width(cid), font.get_descent())
            text, width, descent = glyph
            adv = width * fontsize * scaling
            y0 = descent * fontsize + rise
            a, b, c, d, e, f = matrix
            if b == 0 and c == 0:  # upright text, no shear: the box's corners are two numbers each
                xs: tuple[float, ...] = (e, e + a * adv)
                ys: tuple[float, ...] = (f + d * y0, f + d * (y0 + fontsize))
            else:
                xs = (
                    e + c * y0,
                    e + a * adv + c * y0,
                    e + c * (y0 + fontsize),
                    e + a * adv + c * (y0 + fontsize),
                )
                ys = (
                    f + d * y0,
                    f + b * adv + d * y0,
                    f + d * (y0 + fontsize),
                    f + b * adv + d * (y0 + fontsize),
                )
            low, high = min(ys), max(ys)
            self.chars.append(
                {
                    "text": text,
                    "fontname": font.fontname,
                    "size": high - low,
                    "x0": min(xs),
                    "x1": max(xs),
                    "top": self.page_height - high,
                    "bottom": self.page_height - low,
                    "matrix": matrix,
                }
            )
            return float(adv)

    device = Collector(rsrcmgr, pageno=pageno)
    device.chars, device.page_height, device.glyphs = [], height, {}
    return device


def page_objects(page: Any) -> tuple[list[Char], list[Char], int]:
    """The page's characters and images from pdfminer's layout objects, with the fields used here,
    and how many rules it draws that could make a table's grid (rectangles, vertical lines).

    pdfplumber's own `page.chars`, `page.images` and `page.rects` resolve every graphic-state
    attribute of every object, most of the conversion's time on a dense page; this reads the
    same layout once, and pdfplumber's table finder runs only on a page with a grid to find.
    """
    from pdfminer.layout import LTChar, LTContainer, LTCurve, LTImage, LTLine, LTRect
    from pdfminer.pdfinterp import PDFPageInterpreter

    # not pdfplumber's aggregator: that one also records each character's colours and marked
    # content, a quarter of the reading time, and nothing here uses them
    height = float(page.height)
    device = _collector(page.pdf.rsrcmgr, page.page_number, height)
    PDFPageInterpreter(page.pdf.rsrcmgr, device).process_page(page.page_obj)
    out: list[Char] = device.chars
    images: list[Char] = []
    rules = 0
    stack: list[Any] = [device.get_result()]
    while stack:
        node = stack.pop()
        for obj in node:
            if isinstance(obj, LTChar):  # vertical writing only: the collector keeps the rest
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
            elif isinstance(obj, LTImage):
                images.append({"x0": obj.x0, "x1": obj.x1, "top": height - obj.y1, "bottom": height - obj.y0})
            elif isinstance(obj, LTRect) or (isinstance(obj, LTLine | LTCurve) and obj.height > obj.width):
                rules += 1
            elif isinstance(obj, LTContainer):
                stack.append(obj)
    return out, images, rules


def read_page(page: Any, index: int) -> PageRead:
    """The page's lines, tables and figures in reading order, and its printed page candidates."""
    chars, images, rules = page_objects(page)
    rows = _rows(chars)
    rows.sort(key=lambda r: min((c["top"] for c in r), default=0.0))
    head, foot = _margin_rows(rows, float(page.height))
    numbers: list[int] = []
    romans: list[str] = []
    for margin in (head, foot):
        if margin is not None:
            n, r = folio_candidates(line_text(margin).split())
            numbers += n
            romans += r
    margins = {id(head), id(foot)}
    body_rows = [r for r in rows if id(r) not in margins]
    tables = page.find_tables() if rules >= 2 else []  # only ruled tables
    boxes = [t.bbox for t in tables]
    if boxes:
        body_rows = [[c for c in r if not any(_inside(c, b) for b in boxes)] for r in body_rows]
        body_rows = [r for r in body_rows if r]
    letters = _letters(chars)
    extent = (min(c["x0"] for c in letters), max(c["x1"] for c in letters)) if letters else None
    splits = _splits(body_rows, float(page.width), extent)
    names = _column_names(len(splits) + 1)
    items: list[Line] = []
    columns: dict[str, list[Line]] = {name: [] for name in names}

    def place(item: Line) -> None:
        (items if item.column == "S" else columns[item.column]).append(item)

    for table in tables:
        rows_text = [
            [re.sub(r"\s+", " ", nfc(cell or "")).strip() for cell in row]
            for row in table.extract(x_tolerance_ratio=WORD_GAP)  # word spaces as in a line
        ]
        x0, top, x1, _ = table.bbox
        side = _column(x0, x1, splits)
        head_text = " | ".join(rows_text[0]) if rows_text else ""
        place(Line(index, None, side, x0, top, head_text, False, 0.0, rows=rows_text))
    for image in images:
        x0, x1, top = float(image["x0"]), float(image["x1"]), float(image["top"])
        size = f"[image {x1 - x0:.0f}x{float(image['bottom']) - top:.0f} pt]"  # names it in the debug output
        place(Line(index, None, _column(x0, x1, splits), x0, top, size, False, 0.0, figure=True))
    for row in body_rows:
        letters = _letters(row)
        if not letters:
            continue
        if not splits or any(spans(letters, split) for split in splits):
            items.append(_make_line(row, index, None, "S"))
            continue
        parts: dict[str, list[Char]] = {}
        for c in row:
            parts.setdefault(names[bisect.bisect_right(splits, (c["x0"] + c["x1"]) / 2)], []).append(c)
        for side in names:
            if _letters(parts.get(side, [])):
                columns[side].append(_make_line(parts[side], index, None, side))
    for lines in columns.values():
        text = [ln for ln in lines if ln.rows is None and not ln.figure]
        left_edge = min((ln.x0 for ln in text), default=0.0)
        for ln in text:
            ln.indent = ln.x0 - left_edge
    spanning = [ln for ln in items if ln.rows is None and not ln.figure]
    if spanning and not any(columns.values()):  # one column: indents from its own edge
        left_edge = min(ln.x0 for ln in spanning)
        for ln in spanning:
            ln.indent = ln.x0 - left_edge
    lines = _reading_order(sorted(items, key=lambda ln: ln.top), columns)
    return PageRead(index, lines, numbers, romans, bool(letters))


def _reading_order(spanning: list[Line], columns: dict[str, list[Line]]) -> list[Line]:
    out: list[Line] = []
    above = float("-inf")
    for band_end in [*(s.top for s in spanning), float("inf")]:
        for side in columns:
            out += sorted((ln for ln in columns[side] if above <= ln.top < band_end), key=lambda ln: ln.top)
        out += [s for s in spanning if s.top == band_end]
        above = band_end
    return out
