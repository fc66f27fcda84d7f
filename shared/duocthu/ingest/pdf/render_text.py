"""How the renderer writes a word into the text layer, with the book's defects switchable.

A word is a list of segments (text, font). Each defect touches every Nth eligible word, counted
across the book, so a rendering is deterministic and every defect occurs many times.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from duocthu.core.syllables import is_syllable
from duocthu.ingest.pdf import render_fonts as fonts
from duocthu.ingest.pdf.repair import split_piece_kind, symbol_table, tcvn3_table

DEFECTS = (
    "right_first",  # the right column written first in the content stream
    "split_syllables",  # "Liều lư ợng"
    "tcvn3",  # pieces in the legacy encoding, in a font named .VnTime
    "symbols",  # arrows and ≤ ≥ as Symbol-font private-use code points
    "hyphenation",  # long INN names hyphenated at line ends
    "decomposed",  # decomposed diacritics (NFD)
    "bold_split",  # accented letters of bold lines drawn in the regular font
    "heading_at_foot",  # a section heading as a column's last line
    "table_break",  # a table continued across a page break, its header row repeated
    "figure",  # a raster image with its caption "Hình N: …" inside a section (FIGURE_AT)
)
Segment = tuple[str, str]  # text, font name
Word = list[Segment]


@dataclass
class Defects:
    on: frozenset[str] = frozenset(DEFECTS)
    every: dict[str, int] = field(
        default_factory=lambda: {"split_syllables": 7, "tcvn3": 9, "decomposed": 11, "hyphenation": 1}
    )
    counts: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = set(self.on) - set(DEFECTS)
        if unknown:
            raise ValueError(f"unknown defect(s): {', '.join(sorted(unknown))}")

    def fire(self, name: str) -> bool:
        """Whether this eligible occurrence of the defect is written with it."""
        if name not in self.on:
            return False
        self.counts[name] = self.counts.get(name, 0) + 1
        return self.counts[name] % self.every.get(name, 1) == 0


def _to_tcvn3() -> dict[str, str]:
    return {letter: code for code, letter in tcvn3_table().items()}


def _symbol_codes() -> dict[str, str]:
    return {char: chr(code) for code, char in symbol_table().items()}


def _split(word: str) -> str | None:
    """The word with a space inside that only the syllable list can mend ("l ượng")."""
    if len(word) < 3 or not word.isalpha() or not is_syllable(word):
        return None
    for cut in range(1, len(word)):
        if split_piece_kind(word[:cut], word[cut:]):
            return f"{word[:cut]} {word[cut:]}"
    return None


def prose_word(text: str, defects: Defects) -> Word:
    """One whitespace-free word of running text, as segments."""
    symbols = _symbol_codes()
    if "symbols" in defects.on and any(ch in symbols for ch in text):
        return [(symbols[ch], fonts.SYMBOL) if ch in symbols else (ch, fonts.REGULAR) for ch in text]
    encodable = _to_tcvn3()
    tcvn3 = not text.isascii() and all(ch in encodable or (ch.isascii() and ch.isalpha()) for ch in text)
    if tcvn3 and defects.fire("tcvn3"):
        return [("".join(encodable.get(ch, ch) for ch in text), fonts.TCVN3)]
    core = text.rstrip(",.;:)")
    if _split(core) and defects.fire("split_syllables"):
        return [(f"{_split(core)}{text[len(core) :]}", fonts.REGULAR)]
    if not text.isascii() and defects.fire("decomposed"):
        return [(unicodedata.normalize("NFD", text), fonts.REGULAR)]
    return [(text, fonts.REGULAR)]


def bold_word(text: str, defects: Defects) -> Word:
    """A word of a heading or title: bold, its accented letters possibly from the regular font."""
    if "bold_split" not in defects.on or text.isascii():
        return [(text, fonts.BOLD)]
    return [(ch, fonts.REGULAR if not ch.isascii() else fonts.BOLD) for ch in text]


def hyphenable(text: str) -> bool:
    """A long Latin name (an INN) that the book breaks at a line end."""
    return len(text) >= 9 and text.isascii() and text.isalpha()
