"""A table printed without rules (none, or only horizontal ones): its cells from the text's own
alignment, not from a grid.

A caption ("Bảng N: …") that no ruled grid follows opens one: the next line split at gaps far
wider than a word space gives the columns' left edges. Without a caption, a line in pieces opens
one on trial, and it is a table only on strong evidence (`aligned`): several lines in two or more
pieces, each at the columns' edges, the pieces short (running text set in two columns that a
page's split missed has lines of many words). A line belongs to the table while each of
its pieces starts at a column's edge and ends before the next column's, in the table's type size;
a line whose first column is empty or goes on in lower case continues the row before it (a cell
wrapped over lines: a cell's text starts with a capital or a digit). Any
other line ends the table: running text crosses a column edge, a heading or the text after the
table is set in the text's size.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from duocthu.ingest.pdf.layout import Line
from duocthu.ingest.pdf.repair import join_lines

EDGE = 2.0  # pt: a piece starts at a column's edge within this
ALIGNED_LINES = 3  # a table without a caption: at least this many lines in pieces at the edges
CELL_WORDS = 4  # ... whose pieces hold at most this many words in the middle (a column's prose more)


@dataclass
class LooseTable:
    starts: list[float]  # each column's left edge, from the table's first line
    size: float
    rows: list[list[str]] = field(default_factory=list)
    last: Line | None = None
    pieces: list[int] = field(default_factory=list)  # words in each piece of a line in pieces
    lines_in_pieces: int = 0

    @classmethod
    def begin(cls, line: Line) -> LooseTable | None:
        """A table whose first line (its header) is `line`, when the line is in cells."""
        if len(line.cells) < 2:
            return None
        table = cls([x0 for x0, _, _ in line.cells], line.size)
        table.take(line)
        return table

    def take(self, line: Line) -> bool:
        """Add the line as a row or a row's continuation; False when it is no line of this table."""
        if line.rows is not None or line.figure or abs(line.size - self.size) > 0.5:
            return False
        pieces = line.cells or ((line.x0, line.x1, line.text),)
        placed: dict[int, str] = {}
        for x0, x1, text in pieces:
            column = bisect.bisect_right(self.starts, x0 + EDGE) - 1
            ends = self.starts[column + 1] if column + 1 < len(self.starts) else float("inf")
            if column < 0 or abs(x0 - self.starts[column]) > EDGE or x1 > ends - EDGE or column in placed:
                return False
            placed[column] = text
        if len(placed) > 1:
            self.lines_in_pieces += 1
            self.pieces += [len(t.split()) for t in placed.values()]
        continues = 0 not in placed or placed[0][:1].islower()
        if not continues or not self.rows:
            self.rows.append([placed.get(n, "") for n in range(len(self.starts))])
        else:
            row = self.rows[-1]
            for n, text in placed.items():
                row[n] = join_lines(row[n], text)  # a hyphen or slash at a cell's line end
        self.last = line
        return True

    def aligned(self) -> bool:
        """Strong evidence of a table where no caption announces one: enough lines in pieces at
        the same column edges, and short pieces (cells, not a column's running text)."""
        middle = sorted(self.pieces)[len(self.pieces) // 2] if self.pieces else 0
        return self.lines_in_pieces >= ALIGNED_LINES and middle <= CELL_WORDS
