"""The renderer's page machinery: two columns and full-width bands on A4, a running header with the
printed page number, and the order in which a page's drawing reaches the content stream.

Drawing is buffered per page and tagged with its region, so the right column can be written to
the content stream before the left one (the book's defect) without changing what the page shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from duocthu.ingest.pdf import render_fonts as fonts

PAGE_W, PAGE_H = 595.28, 841.89
LEFT = 48.0
GUTTER = 18.0
BODY_W = PAGE_W - 2 * LEFT
COL_W = (BODY_W - GUTTER) / 2
BODY_TOP = PAGE_H - 70  # below the running header's band
BOTTOM = 50.0
HEADER_Y = PAGE_H - 42

Canvas = Any  # reportlab.pdfgen.canvas.Canvas (untyped)
Draw = Callable[[Canvas], None]


@dataclass
class PlacedSegment:
    x: float
    text: str
    font: str
    size: float


def draw_segments(segments: list[PlacedSegment], y: float) -> Draw:
    """One text object for the line; a font is set only where it changes (a small content stream
    keeps the converter fast). Segments are laid end to end, so their x follow from the widths."""
    runs: list[PlacedSegment] = []
    for seg in segments:
        if runs and runs[-1].font == seg.font and runs[-1].size == seg.size:
            runs[-1] = PlacedSegment(runs[-1].x, runs[-1].text + seg.text, seg.font, seg.size)
        else:
            runs.append(seg)

    def draw(canvas: Canvas) -> None:
        if not runs:
            return
        text = canvas.beginText(runs[0].x, y)
        for run in runs:
            text.setFont(run.font, run.size)
            text.setTextRenderMode(2 if run.font == fonts.BOLD else 0)  # fill+stroke looks bold
            text.textOut(run.text)
        canvas.drawText(text)

    return draw


@dataclass
class Pages:
    """Where the next line goes: page, column, and the band the columns start in."""

    canvas: Canvas
    right_first: bool
    page_offset: int
    page: int = 1
    column: int = 0
    y: float = BODY_TOP
    band_top: float = BODY_TOP
    ops: list[tuple[str, Draw]] = field(default_factory=list)
    header_name: str = ""

    @property
    def printed(self) -> int:
        return self.page + self.page_offset

    def column_x(self) -> float:
        return LEFT + self.column * (COL_W + GUTTER)

    def room(self) -> float:
        return self.y - BOTTOM

    def next_column(self) -> None:
        if self.column == 0:
            self.column, self.y = 1, self.band_top
        else:
            self.new_page()

    def new_page(self) -> None:
        self.finish_page()
        self.page += 1
        self.column, self.y, self.band_top = 0, BODY_TOP, BODY_TOP

    def start_band(self) -> None:
        """A full-width block goes here: below the left column, or on a new page from the right."""
        if self.column == 1:
            self.new_page()

    def end_band(self) -> None:
        self.band_top, self.column = self.y, 0

    def line(self, height: float) -> tuple[float, float]:
        """Room for a column line of this height: its x and baseline y."""
        if self.room() < height:
            self.next_column()
        self.y -= height
        return self.column_x(), self.y

    def add(self, draw: Draw, spanning: bool = False) -> None:
        self.ops.append(("S" if spanning else "LR"[self.column], draw))

    def finish_page(self) -> None:
        canvas = self.canvas
        number = str(self.printed)
        name = self.header_name.upper()

        def header(c: Canvas) -> None:
            c.setFont(fonts.REGULAR, 8)
            if self.page % 2:
                c.drawString(LEFT, HEADER_Y, f"DTQGVN 2 – {name}")
                c.drawRightString(PAGE_W - LEFT, HEADER_Y, number)
            else:
                c.drawString(LEFT, HEADER_Y, number)
                c.drawRightString(PAGE_W - LEFT, HEADER_Y, f"{name} – DTQGVN 2")

        header(canvas)
        order = {"R": 0, "L": 1, "S": 2} if self.right_first else {"L": 0, "R": 0, "S": 0}
        for _, draw in sorted(self.ops, key=lambda op: order[op[0]]):
            draw(canvas)
        self.ops.clear()
        canvas.showPage()
