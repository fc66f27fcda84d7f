"""A ruled, full-width table for the renderer: cells wrapped, the header row repeated after a page
break (the book's tables run across pages that way)."""

from __future__ import annotations

from collections.abc import Callable

from duocthu.ingest.pdf import render_fonts as fonts
from duocthu.ingest.pdf.render_page import BODY_W, LEFT, Canvas, Pages

SIZE, LEADING, PAD = 8.0, 10.0, 3.0


def _wrap(text: str, width: float) -> list[str]:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    lines = [""]
    for word in text.split():
        trial = f"{lines[-1]} {word}".strip()
        if lines[-1] and stringWidth(trial, fonts.REGULAR, SIZE) > width:
            lines.append(word)
        else:
            lines[-1] = trial
    return lines


def _row(pages: Pages, cells: list[str], bold: bool) -> None:
    width = BODY_W / len(cells)
    wrapped = [_wrap(c, width - 2 * PAD) for c in cells]
    height = max(len(w) for w in wrapped) * LEADING + 2 * PAD
    top = pages.y
    font = fonts.BOLD if bold else fonts.REGULAR

    def draw(canvas: Canvas) -> None:
        canvas.setLineWidth(0.5)
        for i, lines in enumerate(wrapped):
            x = LEFT + i * width
            canvas.rect(x, top - height, width, height, stroke=1, fill=0)
            canvas.setFont(font, SIZE)
            for n, line in enumerate(lines):
                canvas.drawString(x + PAD, top - PAD - SIZE - n * LEADING, line)

    pages.add(draw, spanning=True)
    pages.y -= height


def row_height(cells: list[str]) -> float:
    width = BODY_W / len(cells)
    return max(len(_wrap(c, width - 2 * PAD)) for c in cells) * LEADING + 2 * PAD


def draw_table(
    pages: Pages, rows: list[list[str]], break_after: int | None, mark: Callable[[], None]
) -> None:
    """Rows from pages.y down; a row that does not fit (or the forced break) goes to a new page,
    under the repeated header row."""
    header, *body = rows
    _row(pages, header, True)
    mark()
    for n, cells in enumerate(body):
        if pages.room() < row_height(cells) or n == break_after:
            pages.new_page()
            _row(pages, header, True)
        _row(pages, cells, False)
        mark()
