"""The kidney, liver and pregnancy states a turn tells, as written for `duocthu.retrieval.levels`
to read: an organ function with its qualifiers and value ("suy thận nặng", "egfr 38"), and a
pregnancy's stage ("tuần 10", "thai 7 tháng", "3 tháng cuối", the ward's "34w" as "34 tuần")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from duocthu.core.phrases import phrase_starts
from duocthu.core.tables import table_records
from duocthu.core.text import fold, nfc, typed_matches, typed_token, words
from duocthu.understanding.cues import Cue

# Words of a stated level after an organ failure, kept for duocthu.retrieval.levels to read (not
# "mất bù": typed unmarked, "bù" is "bú", breastfeeding)
_RENAL_DETAIL = ("nặng", "nhẹ", "vừa", "mạn", "cấp", "tính", "giai", "đoạn", "độ", "cuối", "rất", "child",
                 "pugh", "a", "b", "c")  # fmt: skip
# A pregnancy's stage as written (weeks, or months after a word for pregnancy; a trimester is
# data/patient_levels.tsv), read against stage-bound contraindications.
_WEEKS_SHORT = re.compile(r"\b(?:thai|bau|san phu)\s+(\d+)\s*w\b")
_STAGE = re.compile(r"\btuần\s+(?:thứ\s+)?\d+|\b\d+\s*tuần\b|\b(?:thai|bầu)\s+(?:được\s+)?\d+\s*tháng\b")


def function_told(found: Sequence[Cue], tokens: Sequence[str]) -> str | None:
    """The stated kidney/liver function: the first cue and the qualifiers after it ("suy thận
    nặng"), and a number told by a later cue ("suy thận, độ thanh thải creatinin 20")."""

    def reading(cue: Cue) -> str:
        end = cue.end
        while end < len(tokens) and end - cue.end < 3 and _detail(tokens[end]):
            end += 1
        value = _value_after(tokens, end)
        return " ".join([*tokens[cue.start : end], *((value,) if value else ())])

    if not found:
        return None
    first = reading(found[0])
    if any(ch.isdigit() for ch in first):
        return first
    numbered = next((r for r in map(reading, found[1:]) if any(ch.isdigit() for ch in r)), None)
    return f"{first}, {numbered}" if numbered else first


def _detail(token: str) -> bool:
    """A qualifier of the function, under the diacritics rule ("đo" is no "độ")."""
    typed = typed_token(token)
    return any(typed_matches(typed, w) for w in _RENAL_DETAIL)


# A function's value is the first number a few words after its name, whatever words the clinician
# puts between ("eGFR lần này 38", "ClCr hiện tại khoảng 25"), unless a unit says it measures
# something else ("suy thận 3 năm nay", "suy thận, bé 12 kg")
VALUE_GAP = 3
_OTHER_UNITS = frozenset(
    ("kg", "tuoi", "t", "thang", "tuan", "ngay", "nam", "gio", "mg", "g", "mcg", "vien", "lan")
)


def _value_after(tokens: Sequence[str], end: int) -> str | None:
    for i in range(end, min(end + VALUE_GAP + 1, len(tokens))):
        if tokens[i].isdigit():
            unit = fold(tokens[i + 1]) if i + 1 < len(tokens) else ""
            return None if unit in _OTHER_UNITS else tokens[i]
    return None


@lru_cache(maxsize=1)
def stage_phrases() -> tuple[tuple[str, ...], ...]:
    rows = table_records("patient_levels.tsv")
    return tuple(tuple(words(r["phrase"])) for r in rows if r["concept"] == "pregnancy")


def pregnancy_stage(text: str, written: Sequence[str], tokens: Sequence[str]) -> str | None:
    """The stage a pregnant patient's turn states, as written: "tuần 10", "thai 7 tháng", "3 tháng cuối"."""
    for phrase in stage_phrases():  # before the numbers: "mang thai 3 tháng cuối" is no month count
        start = next(phrase_starts(tokens, phrase, lenient=True), None)
        if start is not None:
            return " ".join(written[start : start + len(phrase)])
    match = _STAGE.search(nfc(text).lower())
    if match:
        return match.group(0)
    # the ward's "34w" is "34 tuần", written as the book reads weeks
    weeks = _WEEKS_SHORT.search(fold(text))
    return f"{weeks.group(1)} tuần" if weeks else None
