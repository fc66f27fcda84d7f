"""Where a page's columns meet, found from the text's own gaps: the strip that the fewest rows'
letters cross (`_gutter`), searched again inside a side wide enough to be two columns (`_splits`),
and which column an item or a row's letters stand in."""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from typing import Any

Char = dict[str, Any]


def _x0(char: Char) -> float:
    return float(char["x0"])


def _letters(row: list[Char]) -> list[Char]:
    return [c for c in row if not c["text"].isspace()]


def _runs_of_words(letters: list[Char]) -> list[tuple[float, float]]:
    """A row's stretches of text: letters closer than a word space and a half are one stretch, so
    a line crossing the gutter covers it whole, and a gutter is wider than any word space."""
    out: list[tuple[float, float]] = []
    start = end = 0.0
    for c in sorted(letters, key=_x0):
        x0, x1 = c["x0"], c["x1"]
        if out and x0 - end < 0.6 * c["size"]:
            end = x1 if x1 > end else end
            out[-1] = (start, end)
        else:
            start, end = x0, x1
            out.append((x0, x1))
    return out


def _gutter(
    rows: list[list[Char]],
    width: float,
    extent: tuple[float, float] | None = None,
    bounds: tuple[float, float] | None = None,
) -> tuple[float, float, float] | None:
    """The column gap, found from the text's own gaps: the strip in the page's middle that the
    fewest rows' letters cross, the one at the text block's centre (`extent`: the page's text
    from left to right) or else the nearest, split at its centre. Space glyphs are ignored (some
    writers put one at each line end, and a mirrored margin moves the text block off the page
    centre), and so are letters larger than the body text (a centred title crosses the gutter).
    None for a one-column page: too many rows cross it, or no row has letters on one side.
    `bounds`: the stretch of the page searched (its middle two fifths), the whole page by default."""
    left_end, right_end = bounds or (0.0, width)
    lo, hi = int(left_end + 0.3 * (right_end - left_end)), int(left_end + 0.7 * (right_end - left_end))
    steps = [0] * (hi - lo + 1)
    spans: list[tuple[float, float]] = []
    stretches: list[list[tuple[float, float]]] = []
    letter_rows = [_letters(r) for r in rows]
    sizes = Counter(round(float(c["size"])) for r in letter_rows for c in r)
    body = sizes.most_common(1)[0][0] if sizes else 0
    for row in letter_rows:
        # letters larger than the body text are no evidence: a centred title may cross the gutter
        letters = [c for c in row if float(c["size"]) <= 1.1 * body + 0.5]
        if not letters:
            continue
        spans.append((min(c["x0"] for c in letters), max(c["x1"] for c in letters)))
        stretches.append(_runs_of_words(letters))
        for x0, x1 in stretches[-1]:
            start, end = max(lo, int(x0)), min(hi, int(x1) + 1)
            if start < end:  # counted as steps, summed below: each run is two additions
                steps[start - lo] += 1
                steps[end - lo] -= 1
    if len(spans) < 4:
        return None
    cover = list(itertools.accumulate(steps[:-1]))
    least = min(cover)
    runs: list[tuple[int, int]] = []
    for x, n in enumerate(cover):
        if n == least:
            if runs and runs[-1][1] == x - 1:
                runs[-1] = (runs[-1][0], x)
            else:
                runs.append((x, x))
    # The run holding the text block's centre wins (the gutter is there whatever the margins),
    # else the nearest; the split is the run's centre. The block is the page's whole text, running
    # head included: a short column does not shrink it.
    x0, x1 = extent or (min(s for s, _ in spans), max(e for _, e in spans))
    block = (x0 + x1) / 2 - lo
    a, b = min(runs, key=lambda r: (max(r[0] - block, block - r[1] - 1, 0.0), -(r[1] - r[0])))
    low = least
    split = (a + b + 1) / 2 + lo
    # a column is text of its own: some row has a stretch wholly on each side (a side whose rows
    # all cross into the other, or stop short of the gap, is one column with a ragged edge)
    left = sum(any(e < split for _, e in row) for row in stretches)
    right = sum(any(s > split for s, _ in row) for row in stretches)
    if low > 0.25 * len(spans) or b - a < 5 or min(left, right) < 1:
        return None
    return float(a + lo), float(b + lo + 1), float(split)


def _splits(rows: list[list[Char]], width: float, extent: tuple[float, float] | None) -> list[float]:
    """Where the page's columns meet, left to right: the page's gutter, then a gutter inside the
    wider side when that side is two columns of its own (three page columns). A part narrower than
    a fifth of the text block is no column (a code and its name in an appendix line are one)."""
    top = _gutter(rows, width, extent)
    if top is None:
        return []
    out = [top[2]]
    letters = [c for r in rows for c in _letters(r)]
    x0, x1 = extent or (min(c["x0"] for c in letters), max(c["x1"] for c in letters))
    for lo, hi in ((x0, top[2]), (top[2], x1)):
        if hi - lo < 0.5 * (x1 - x0):
            continue
        part = [[c for c in r if lo <= (c["x0"] + c["x1"]) / 2 < hi] for r in rows]
        inner = _gutter([r for r in part if r], width, (lo, hi), (lo, hi))
        if inner is not None and min(inner[2] - lo, hi - inner[2]) >= 0.2 * (x1 - x0):
            out.append(inner[2])
    return sorted(out)


def _column_names(count: int) -> list[str]:
    named = {2: ["L", "R"], 3: ["L", "M", "R"]}
    return named.get(count) or [f"C{n + 1}" for n in range(count)]


def spans(letters: list[Char], split: float) -> bool:
    """Whether a row's letters cross the column split: a stretch of its text runs past it by half
    a letter on both sides (a title that juts a little into the gutter stays in its column)."""
    jut = 0.5 * max(float(c["size"]) for c in letters)
    return any(x0 < split - jut and x1 > split + jut for x0, x1 in _runs_of_words(letters))


def _column(x0: float, x1: float, splits: list[float]) -> str:
    """The column ("L", "R"; "L", "M", "R" for three) an item lies wholly in, else "S" (spanning)."""
    if not splits:
        return "S"
    first, last = bisect.bisect_right(splits, x0), bisect.bisect_left(splits, x1)
    return _column_names(len(splits) + 1)[first] if first == last else "S"
