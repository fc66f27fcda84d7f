"""Vietnamese syllables (data/vi_syllables.txt, every syllable of a public dictionary): what tells
a Vietnamese word from a Latin or foreign one, where the text layer or a sentence end must be
decided by the word itself (a split syllable to join, "S. Typhi" vs "vitamin K. Khi")."""

from __future__ import annotations

import unicodedata
from functools import cache

from duocthu.core.tables import data_lines

TONE_MARKS = frozenset("\u0300\u0301\u0309\u0303\u0323")


@cache
def syllables() -> frozenset[str]:
    return frozenset(line.strip() for line in data_lines("vi_syllables.txt"))


def toneless(word: str) -> str:
    """Lower case, NFC, without the tone mark (vowel marks and đ kept): the syllable list's form."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    return unicodedata.normalize("NFC", "".join(ch for ch in decomposed if ch not in TONE_MARKS))


def is_syllable(word: str) -> bool:
    marks = sum(ch in TONE_MARKS for ch in unicodedata.normalize("NFD", word))
    return marks <= 1 and toneless(word) in syllables()
