"""Repairs of a PDF text layer's known defects, driven by data files in `ingest/pdf/data/`.

Each repair is narrow on purpose: TCVN3 decoding only for characters drawn in a TCVN3 font, split
syllables re-joined only into a listed Vietnamese syllable, a hyphen dropped only at a line end
before a lower-case continuation. Everything ends in NFC.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache
from importlib import resources

from duocthu.core.syllables import is_syllable, toneless

_PIECE = re.compile(r"^(\W*)(\w+)(\W*)$")
_VOWELS = frozenset("aăâeêioôơuưy")
_VOWEL_STARTS = frozenset("aăâeêioôơuưyàáảãạằắẳẵặầấẩẫậèéẻẽẹềếểễệìíỉĩịòóỏõọồốổỗộờớởỡợùúủũụừứửữựỳýỷỹỵ")


def _data_lines(name: str) -> list[list[str]]:
    text = resources.files("duocthu.ingest.pdf").joinpath("data").joinpath(name).read_text(encoding="utf-8")
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    return rows[1:] if len(rows[0]) > 1 else rows  # a .tsv has a header row


def _code_point(text: str) -> str:
    return chr(int(text.removeprefix("U+"), 16))


@cache
def tcvn3_table() -> dict[str, str]:
    """TCVN3 code point -> Unicode letter."""
    return {_code_point(code): letter for letter, code in _data_lines("tcvn3.tsv")}


@cache
def symbol_table() -> dict[int, str]:
    """Symbol-font private-use code point -> Unicode character (for str.translate)."""
    return {ord(_code_point(code)): char for code, char in _data_lines("symbols.tsv")}


@cache
def is_tcvn3_font(fontname: str) -> bool:
    """`.VnTime`, `.VnTimeH`, `ABCDEF+.VnArial`: the legacy fonts are named `.Vn…`."""
    return fontname.split("+", 1)[-1].lstrip(".").startswith("Vn")


def decode_tcvn3(text: str) -> str:
    """A TCVN3 font's text as Unicode letters. A symbol-encoded legacy font's text layer carries
    each byte as U+F0xx (as the Symbol font's does): the byte is its low half."""
    table = tcvn3_table()
    return "".join(
        table.get(byte := chr(ord(ch) - 0xF000) if 0xF020 <= ord(ch) <= 0xF0FF else ch, byte) for ch in text
    )


def legacy_code_text(fontname: str, code: int, has_to_unicode: bool, multibyte: bool) -> str | None:
    """The text of a TCVN3 font's character read from its code, when the text layer has no map
    for it: a single-byte font without a ToUnicode map is read through its encoding's glyph names,
    which give a Latin-1 reading of the byte at best (pdfminer reads WinAnsi's 0xAD, TCVN3's ư, as
    a space); the byte itself is the TCVN3 code. None: read the text layer as it is."""
    if has_to_unicode or multibyte or not is_tcvn3_font(fontname) or not 0x20 <= code <= 0xFF:
        return None
    return chr(code)


# Latin ligatures as presentation forms ("ﬁ", "ﬂ", "ﬃ": some writers put them in the text layer)
_LIGATURES = {cp: unicodedata.normalize("NFKC", chr(cp)) for cp in range(0xFB00, 0xFB07)}


def map_symbols(text: str) -> str:
    """Symbol-font private-use code points mapped; Latin ligatures spelt out."""
    return text.translate(symbol_table()).translate(_LIGATURES)


def has_vowel(text: str) -> bool:
    return any(ch in _VOWELS for ch in toneless(text))


def split_piece_kind(head: str, tail: str) -> bool:
    """Whether "head tail" is a split the repair mends: an onset cut off ("D ược", "t hanh") or a
    rhyme cut off ("lư ợng", "Tư ơng")."""
    # "S ở" (protein S), "D ước tính" (vitamin D) are two words: a lone capital cut off is mended
    # only before a piece that is no syllable, so "D ược" stays as printed.
    alone = len(head) == 1 and head.isupper() and is_syllable(tail)
    if not (head.islower() or head.isupper() or head.istitle()):
        return False  # "pH", "mEq": a syllable is never cased inside
    onset = not has_vowel(head) and not alone
    rhyme = tail[:1].lower() in _VOWEL_STARTS and not is_syllable(tail)
    return (onset or rhyme) and is_syllable(head + tail)


@lru_cache(maxsize=1 << 16)  # a book repeats its word pairs: each is decided once
def _joined(first: str, second: str) -> str | None:
    """The syllable two space-separated pieces make, when they are one split syllable; a plain
    pair of words ("có thể", "vitamin K") is never joined."""
    a, b = _PIECE.match(first), _PIECE.match(second)
    if a is None or b is None or a.group(3) or b.group(1):
        return None  # punctuation between the pieces: two words
    head, tail = a.group(2), b.group(2)
    if not (head.isalpha() and tail.isalpha()) or not split_piece_kind(head, tail):
        return None
    return a.group(1) + head + tail + b.group(3)


def rejoin_syllables(text: str) -> str:
    tokens = text.split(" ")
    out: list[str] = []
    i = 0
    while i < len(tokens):
        joined = _joined(tokens[i], tokens[i + 1]) if i + 1 < len(tokens) else None
        if joined is not None:
            out.append(joined)
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return " ".join(out)


_LINE_END_HYPHEN = re.compile(r"(\w+)-$")
_LINE_END_NUMBER_HYPHEN = re.compile(r"\d-$")  # "4-", "beta2-": a locant or a range, never hyphenation
_LINE_END_DASH = re.compile(r"\w[–—]$")  # "25–" / "90%": a range broken after its dash
BREAK = "\u00ad"  # a line-end hyphen before a lower-case continuation, until the book decides
_BROKEN = re.compile(rf"([\w-]*\w){BREAK}(\w[\w-]*)")


def join_lines(previous: str, line: str) -> str:
    """Two lines of one paragraph: a word hyphenated at the line end is put back together.

    Before a capital or a digit the hyphen is a hard one and stays ("Stevens-" "Johnson"); before
    a lower-case letter it may be either ("amoxi-" "cilin", "beta-" "lactam"): it is marked with
    `BREAK` and `resolve_breaks` decides from the words the book prints hyphenated mid-line.
    """
    if previous.endswith(("\u2010", "\u00ad")):  # the typographic hyphen, a soft one drawn
        previous = previous[:-1] + "-"
    if _LINE_END_NUMBER_HYPHEN.search(previous):  # "4-" "hydroxy…": a typesetter breaks words between letters
        return previous + line
    if _LINE_END_HYPHEN.search(previous) and line[:1].islower():
        return previous[:-1] + BREAK + line
    if _LINE_END_HYPHEN.search(previous) and (line[:1].isupper() or line[:1].isdigit()):
        return previous + line
    if previous.endswith("/") or _LINE_END_DASH.search(previous):  # "sulfamethoxazol/" "trimethoprim"
        return previous + line
    return f"{previous} {line}" if previous else line


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def resolve_breaks(text: str, hyphenated: set[str]) -> str:
    """Each marked line-end break: a hyphen when the book prints that compound with one inside a
    line ("beta-lactam"), else nothing (a word the typesetter hyphenated)."""
    folded = {w.lower() for w in hyphenated}

    def one(match: re.Match[str]) -> str:
        word = f"{match.group(1)}-{match.group(2)}"
        return word if word.lower() in folded else match.group(1) + match.group(2)

    return _BROKEN.sub(one, text).replace(BREAK, "")
