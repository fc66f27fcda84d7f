"""`duocthu render-pdf`: typeset a formulary source the way the printed book is laid out.

Two columns; monographs start mid-column with an upper-case bold title and the inline identity
lines; bold section headings (with the book's spelling variants); dose tables as ruled full-width
grids captioned "Bảng N: …" that may run across a page break; a closing "Tên thương mại" section;
a brand index ("MỤC LỤC TRA CỨU") at the back. Each text-layer defect of the book is switchable
(`render_text.DEFECTS`). Alongside the PDF it writes the truth: the monographs as the converter
should read them back, with the printed and PDF pages every section landed on.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from duocthu.core.text import fold
from duocthu.ingest.pdf import render_fonts as fonts
from duocthu.ingest.pdf.render_figure import HEIGHT as FIGURE_H
from duocthu.ingest.pdf.render_figure import draw_figure
from duocthu.ingest.pdf.render_page import BODY_W, COL_W, PAGE_H, PAGE_W, Pages, PlacedSegment, draw_segments
from duocthu.ingest.pdf.render_table import draw_table
from duocthu.ingest.pdf.render_text import Defects, Word, bold_word, hyphenable, prose_word
from duocthu.models.source import Monograph

IDENTITY = ("ten_chung_quoc_te", "ma_atc", "loai_thuoc")
TRADE_NAMES = "ten_thuong_mai"
TITLE_MARK = "_title"  # a truth's key for where a monograph's title landed (engines that mark it)
# Printed headings differ from the canonical ones in some monographs (every Nth drug uses these).
VARIANTS = {
    "lieu_luong_va_cach_dung": ("Liều lượng, cách dùng", "Cách dùng và liều lượng", "Liều dùng và cách dùng"),
    "do_on_dinh_va_bao_quan": ("Bảo quản",),
}
PAGE_OFFSET = 98  # PDF page 1 is printed page 99
BODY, LEADING = 9.0, 11.5
HEAD, HEAD_LEADING = 10.0, 13.0
TITLE, TITLE_LEADING = 13.0, 16.0
INDENT = 10.0
# The "figure" defect: these monographs (by position in the source) get one figure, after the
# first block of their first section with a heading.
FIGURE_AT = (2, 22)
FIGURE_CAPTION = "Sơ đồ minh hoạ (hình mẫu của bản dựng thử)"


def brands(record: Monograph) -> list[str]:
    """The aliases that are trade names (capitalised), in source order."""
    return [a for a in record.aliases if a[:1].isupper() and fold(a) != fold(record.title)]


@dataclass
class Truth:
    """Which printed and PDF pages each section's lines landed on."""

    pages: dict[tuple[str, str], list[tuple[int, int]]] = field(default_factory=dict)
    index_pages: list[int] = field(default_factory=list)
    # (drug_id, section key) -> the figures there: (caption as printed, printed page, PDF page)
    figures: dict[tuple[str, str], list[tuple[str, int, int]]] = field(default_factory=dict)

    def mark(self, drug_id: str, key: str, pages: Pages) -> None:
        self.pages.setdefault((drug_id, key), []).append((pages.printed, pages.page))


class Book:
    def __init__(self, canvas: object, defects: Defects):
        self.defects = defects
        self.pages = Pages(canvas, "right_first" in defects.on, PAGE_OFFSET)
        self.truth = Truth()
        self.tables = 0
        self.figures = 0
        self.headings = 0
        self.where: tuple[str, str] = ("", "")

    def _width(self, word: Word, size: float) -> float:
        from reportlab.pdfbase.pdfmetrics import stringWidth

        return float(sum(stringWidth(text, font, size) for text, font in word))

    def _wrap(
        self, words: list[tuple[str, Word]], width: float, size: float, indent: float, hyphenate: bool = True
    ) -> list[list[Word]]:
        """Greedy lines; only running text is hyphenated (the book never breaks a title or heading)."""
        space = self._width([(" ", fonts.REGULAR)], size)
        lines: list[list[Word]] = [[]]
        used = indent
        for original, word in words:
            w = self._width(word, size)
            if lines[-1] and used + space + w > width:
                head = self._hyphen_head(original, width - used - space, size) if hyphenate else None
                if head is not None:
                    lines[-1].append([(original[:head] + "-", fonts.REGULAR)])
                    word = [(original[head:], fonts.REGULAR)]
                    w = self._width(word, size)
                lines.append([])
                used = 0.0
            used += (space if lines[-1] else 0.0) + w
            lines[-1].append(word)
        return lines

    def _fitting(self, words: list[str], size: float = BODY, room: float = COL_W - INDENT) -> list[str]:
        """A word wider than a column (none in the sample) is cut after a "/" where it has one
        (the converter joins a line ending in "/" without a space), else anywhere."""
        out: list[str] = []
        for word in words:
            while self._width([(word, fonts.REGULAR)], size) > room:
                cuts = [n + 1 for n, ch in enumerate(word[:-1]) if ch == "/"]
                fits = [
                    n for n in range(1, len(word)) if self._width([(word[:n], fonts.REGULAR)], size) <= room
                ]
                cut = max([n for n in cuts if n in fits] or fits)
                out.append(word[:cut])
                word = word[cut:]
            out.append(word)
        return out

    def _hyphen_head(self, original: str, room: float, size: float) -> int | None:
        if not hyphenable(original):
            return None
        for cut in range(len(original) - 3, 3, -1):
            if self._width([(original[:cut] + "-", fonts.REGULAR)], size) <= room:
                return cut if self.defects.fire("hyphenation") else None
        return None

    def _emit(self, lines: list[list[Word]], size: float, leading: float, indent: float = 0.0) -> None:
        for n, words in enumerate(lines):
            x, y = self.pages.line(leading)
            x += indent if n == 0 else 0.0
            placed: list[PlacedSegment] = []
            for i, word in enumerate(words):
                if i:
                    placed.append(PlacedSegment(x, " ", fonts.REGULAR, size))
                    x += self._width([(" ", fonts.REGULAR)], size)
                for text, font in word:
                    placed.append(PlacedSegment(x, text, font, size))
                    x += self._width([(text, font)], size)
            self.pages.add(draw_segments(placed, y))
            self.truth.mark(*self.where, self.pages)

    def paragraph(self, text: str, lead: Sequence[str] = (), indent: float = INDENT) -> None:
        words = [(w, bold_word(w, self.defects)) for w in lead]
        words += [(w, prose_word(w, self.defects)) for w in self._fitting(text.split())]
        self._emit(self._wrap(words, COL_W, BODY, indent), BODY, LEADING, indent)

    def heading(self, text: str) -> None:
        lines = self._wrap([(w, bold_word(w, self.defects)) for w in text.split()], COL_W, HEAD, 0.0, False)
        self.headings += 1
        needed = HEAD_LEADING * len(lines) + 2 * LEADING
        if "heading_at_foot" in self.defects.on and self.headings % 37 == 0:
            if self.pages.room() > HEAD_LEADING * len(lines) + 4:
                self.pages.y = self.pages.y - self.pages.room() + HEAD_LEADING * len(lines) + 2
        elif self.pages.room() < needed:
            self.pages.next_column()
        self._emit(lines, HEAD, HEAD_LEADING)

    def title(self, text: str) -> None:
        words = self._fitting(text.upper().split(), TITLE, COL_W)
        lines = self._wrap([(w, bold_word(w, self.defects)) for w in words], COL_W, TITLE, 0.0, False)
        if self.pages.room() < TITLE_LEADING * len(lines) + 4 * LEADING:
            self.pages.next_column()
        else:
            self.pages.y -= 8
        if not self.pages.ops:
            self.pages.header_name = text
        self._emit(lines, TITLE, TITLE_LEADING)

    def table(self, text: str) -> None:
        self.tables += 1
        caption, *rows = text.split("\n")
        cells = [[c.strip() for c in row.split("|")] for row in rows]
        self.pages.start_band()
        if self.pages.room() < 6 * LEADING:
            self.pages.new_page()
        cap = self._wrap(
            [(w, [(w, fonts.REGULAR)]) for w in f"Bảng {self.tables}: {caption}".split()], BODY_W, BODY, 0
        )
        for words in cap:
            self.pages.y -= LEADING
            line = " ".join("".join(t for t, _ in w) for w in words)
            self.pages.add(
                draw_segments([PlacedSegment(48.0, line, fonts.REGULAR, BODY)], self.pages.y), True
            )
            self.truth.mark(*self.where, self.pages)
        # the first table with two body rows or more runs across a page break
        force = 1 if "table_break" in self.defects.on and self.tables == 1 and len(cells) >= 3 else None
        draw_table(self.pages, cells, force, lambda: self.truth.mark(*self.where, self.pages))
        self.pages.y -= 6
        self.pages.end_band()

    def figure(self) -> None:
        """The image in the column, its caption line under it; both kept in one column."""
        self.figures += 1
        if self.pages.room() < FIGURE_H + 2 * LEADING + 4:
            self.pages.next_column()
        x, y = self.pages.line(FIGURE_H + 4)
        self.pages.add(draw_figure(x, y))
        self.truth.mark(*self.where, self.pages)
        caption = f"Hình {self.figures}: {FIGURE_CAPTION}"
        x, y = self.pages.line(LEADING)
        self.pages.add(draw_segments([PlacedSegment(x, caption, fonts.REGULAR, BODY)], y))
        self.truth.mark(*self.where, self.pages)
        self.truth.figures.setdefault(self.where, []).append((caption, self.pages.printed, self.pages.page))

    def monograph(self, record: Monograph, index: int) -> None:
        self.where = (record.drug_id, "_title")
        self.title(record.title)
        wants_figure = "figure" in self.defects.on and index in FIGURE_AT
        for section in record.sections:
            self.where = (record.drug_id, section.key)
            text_blocks = list(section.blocks)
            if section.key in IDENTITY:
                self.paragraph(
                    " ".join(b.text for b in text_blocks), lead=f"{section.heading}:".split(), indent=0
                )
                continue
            variants = VARIANTS.get(section.key, ())
            heading = variants[index % len(variants)] if variants and index % 3 == 1 else section.heading
            self.heading(heading)
            for block in text_blocks:
                if block.kind == "table":
                    self.table(block.text)
                else:
                    for part in block.text.split("\n"):
                        self.paragraph(part)
                if wants_figure:
                    self.figure()
                    wants_figure = False
        names = brands(record)
        if names:
            self.where = (record.drug_id, TRADE_NAMES)
            self.heading("Tên thương mại")
            self.paragraph("; ".join(names) + ".")

    def brand_index(self, entries: list[tuple[str, str, int]]) -> None:
        self.where = ("", "_index")
        self.pages.new_page()
        self.truth.index_pages.append(self.pages.page)
        self.pages.y -= TITLE_LEADING
        title = "MỤC LỤC TRA CỨU"
        y = self.pages.y
        self.pages.add(
            draw_segments([PlacedSegment(PAGE_W / 2 - 60, title, fonts.BOLD, TITLE)], y), spanning=True
        )
        self.pages.y -= 6
        self.pages.end_band()
        for brand, generic, page in sorted(entries, key=lambda e: fold(e[0])):
            before = self.pages.page
            text = f"{brand} - {generic}, {page}"
            lines = self._wrap([(w, [(w, fonts.REGULAR)]) for w in text.split()], COL_W, BODY, 0.0, False)
            self._emit(lines[:1], BODY, LEADING)
            for line in lines[1:]:  # a long entry runs on under a hanging indent
                self._emit([line], BODY, LEADING, INDENT)
            if self.pages.page != before:
                self.truth.index_pages.append(self.pages.page)


def render(records: list[Monograph], out: Path, defects: Defects) -> Truth:
    """Typeset the records into `out` and return where everything went."""
    from reportlab.pdfgen.canvas import Canvas

    chars = "".join({ch for r in records for s in r.sections for b in s.blocks for ch in b.text})
    fonts.register_fonts(chars + "".join(chr(c) for c in _symbol_chars()))
    canvas = Canvas(str(out), pagesize=(PAGE_W, PAGE_H), invariant=1)
    sample = next((r for r in records if r.sample_data), None)
    canvas.setTitle("Dược thư (bản dựng thử)")
    if sample is not None:
        canvas.setSubject(f"sample_data: {sample.notice or 'dữ liệu mẫu'}")
    book = Book(canvas, defects)
    entries: list[tuple[str, str, int]] = []
    for index, record in enumerate(records):
        book.monograph(record, index)
        start = book.truth.pages[(record.drug_id, record.sections[0].key)][0][0]
        entries += [(name, record.title, start) for name in brands(record)]
    book.brand_index(entries)
    book.pages.finish_page()
    canvas.save()
    return book.truth


def _symbol_chars() -> list[int]:
    from duocthu.ingest.pdf.repair import symbol_table

    return [*symbol_table(), *(ord(c) for c in symbol_table().values())]


def figure_block(caption: str, printed: int) -> dict[str, object]:
    """A figure as the converter writes it: its caption and printed page; a person must look."""
    return {"kind": "figure", "text": f"{caption} (hình, trang {printed})", "requires_visual_check": True}


def expected_records(records: list[Monograph], truth: Truth) -> list[dict[str, object]]:
    """The records as the converter should read them back: pages from the rendering."""
    out = []
    for record in records:
        data = json.loads(record.model_dump_json())
        for section in data["sections"]:
            spots = truth.pages[(record.drug_id, section["key"])]
            section["pages"] = {"start": spots[0][0], "end": spots[-1][0]}
            section["pdf_pages"] = {"start": spots[0][1], "end": spots[-1][1]}
            for caption, printed, _ in truth.figures.get((record.drug_id, section["key"]), []):
                section["blocks"].insert(1, figure_block(caption, printed))
        names = brands(record)
        # the brand index cites the page the monograph's title is on (which may be the page before
        # its first section's, a title left at a page's foot), when the engine marks it
        title = truth.pages.get((record.drug_id, TITLE_MARK)) or [(data["sections"][0]["pages"]["start"], 0)]
        data["brands"] = [{"name": name, "page": title[0][0]} for name in names]
        if names:
            spots = truth.pages[(record.drug_id, TRADE_NAMES)]
            data["sections"].append(
                {
                    "key": TRADE_NAMES,
                    "heading": "Tên thương mại",
                    "pages": {"start": spots[0][0], "end": spots[-1][0]},
                    "pdf_pages": {"start": spots[0][1], "end": spots[-1][1]},
                    "blocks": [{"kind": "prose", "text": "; ".join(names) + "."}],
                }
            )
        out.append(data)
    return out
