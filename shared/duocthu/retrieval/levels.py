"""Severity and pregnancy-stage levels, read as data (`data/patient_levels.tsv`) and numbers:
"suy thận nặng", "độ thanh thải creatinin dưới 30 ml/phút", "suy gan nhẹ đến vừa", "Child-Pugh C",
"3 tháng cuối thai kỳ", "từ tuần thứ 20", compared with the level the patient's state gives
("suy thận nhẹ", "eGFR 50", "mang thai tuần 10", "thai 7 tháng").

Each level is a band on its concept's scale (ml/min, Child-Pugh class, weeks). A sentence that
names levels covers the union of its bands; the patient is inside it, outside it, or, when the
patient's level is unknown or straddles its edge, neither. A sentence that names no level of the
concept covers every level (it is about the concept as such), as `limits` reads a sentence that
states no age limit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Literal

from duocthu.core.phrases import word_places
from duocthu.core.tables import table_records
from duocthu.core.text import fold, nfc, typed_matches, typed_token, words

Band = tuple[float, float]  # low inclusive, high exclusive
Relation = Literal["inside", "outside", "unknown"]
# The scale each concept's levels lie on; a patient who names the concept without a level may be
# anywhere on it: impaired kidney function (ml/min), Child-Pugh class, weeks of pregnancy.
SCALES: Mapping[str, Band] = {"renal": (0.0, 90.0), "hepatic": (1.0, 4.0), "pregnancy": (0.0, 42.0)}
CLEARANCE_TOP = 120.0  # "trên 30 ml/phút" reaches past the impaired range
WEEKS_PER_MONTH = 14 / 3  # a trimester is three months of the 42-week scale
# Words after a mention of a kidney or liver concept that a level may stand among.
MENTION_WINDOW = 6

_NUMBER = r"(\d+)(?:[.,]\d+)?"
_COMPARE = r"(dưới|<|≤|trên|>|≥|từ)?\s*"
_RANGE = rf"{_NUMBER}(?:\s*[–-]\s*{_NUMBER})?"
# "dưới 30 ml/phút", "30 – 59 ml/phút", "từ 10 ml/phút trở lên"; "eGFR < 30", "Clcr 10–25"
_CLEARANCE_UNIT = re.compile(rf"{_COMPARE}{_RANGE}\s*ml/phút(?:\s*(trở lên|trở xuống))?")
_CLEARANCE_NAMED = re.compile(
    rf"(?:clcr|egfr|thanh thải creatinin|mức lọc cầu thận)(?:\s*\(egfr\))?\s*"
    rf"(?:(?:là|khoảng|còn|tầm|cỡ|chừng)\s*)?{_COMPARE}{_RANGE}"
)
# "từ tuần thứ 20", "tuần 6–12", "tuần thứ 10", "20 tuần", "thai 7 tháng"
_WEEKS = re.compile(rf"(từ\s+)?tuần\s+(?:thứ\s+)?{_RANGE}|{_NUMBER}\s*tuần\b")
_MONTHS = re.compile(rf"(?:thai|bầu)\s+(?:được\s+)?{_NUMBER}\s*tháng\b")


@lru_cache(maxsize=1)
def _phrases() -> Mapping[str, tuple[tuple[tuple[str, ...], Band], ...]]:
    table: dict[str, list[tuple[tuple[str, ...], Band]]] = {}
    for number, row in enumerate(table_records("patient_levels.tsv"), start=2):
        concept = row["concept"]
        if concept not in SCALES:
            raise ValueError(f"patient_levels.tsv row {number}: unknown concept {concept!r}")
        band = (float(row["low"]), float(row["high"]))
        if band[0] >= band[1]:
            raise ValueError(f"patient_levels.tsv row {number}: an empty band")
        table.setdefault(concept, []).append((tuple(words(row["phrase"])), band))
    return {concept: tuple(rows) for concept, rows in table.items()}


def _compared(
    compare: str | None, low: str, high: str | None, top: float, direction: str | None = None
) -> Band:
    a = float(low)
    if high is not None:
        return (a, float(high) + 1)
    if compare in ("dưới", "<"):
        return (0.0, a)
    if compare == "≤" or direction == "trở xuống":
        return (0.0, a + 1)
    if compare in ("trên", ">"):
        return (a + 1, top)
    if compare in ("≥", "từ") or direction == "trở lên":
        return (a, top)
    return (a, a + 1)


def _clearances(text: str) -> list[Band]:
    lowered = nfc(text).lower()
    bands = [_compared(m[1], m[2], m[3], CLEARANCE_TOP, m[4]) for m in _CLEARANCE_UNIT.finditer(lowered)]
    bands += [_compared(m[1], m[2], m[3], CLEARANCE_TOP) for m in _CLEARANCE_NAMED.finditer(lowered)]
    return bands


def _weeks(text: str) -> list[Band]:
    lowered = nfc(text).lower()
    bands = []
    for m in _WEEKS.finditer(lowered):
        if m[2] is not None:
            bands.append(_compared("từ" if m[1] else None, m[2], m[3], SCALES["pregnancy"][1]))
        else:
            bands.append(_compared(None, m[4], None, SCALES["pregnancy"][1]))
    for m in _MONTHS.finditer(lowered):
        month = float(m[1])
        bands.append(((month - 1) * WEEKS_PER_MONTH, month * WEEKS_PER_MONTH))
    return bands


def _numbers(text: str, concept: str) -> list[Band]:
    if concept == "renal":
        return _clearances(text)
    return _weeks(text) if concept == "pregnancy" else []


@lru_cache(maxsize=1)
def _typed_levels() -> Mapping[str, tuple[tuple[tuple[tuple[str, bool], ...], str, Band], ...]]:
    """Each concept's level phrases read once for the diacritics rule (`typed_token`), with the
    folded first word a text must hold where the phrase starts."""
    return {
        concept: tuple((tuple(map(typed_token, phrase)), fold(phrase[0]), band) for phrase, band in rows)
        for concept, rows in _phrases().items()
    }


def _worded(text: str, concept: str, windows: Iterable[range] | None = None) -> list[Band]:
    """The bands of the level phrases in the text (only those starting inside `windows`, token
    spans, if given), each phrase tried only where its first word stands, by table order."""
    tokens, at = word_places(text)
    spans = list(windows) if windows is not None else [range(len(tokens))]
    return [
        band
        for phrase, head, band in _typed_levels().get(concept, ())
        for start in at.get(head, ())
        if start + len(phrase) <= len(tokens)
        and all(typed_matches(q, t) for q, t in zip(phrase, tokens[start : start + len(phrase)], strict=True))
        and any(start in span for span in spans)
    ]


def sentence_bands(
    sentence: str, concept: str, mentions: Sequence[range] = (), others: Sequence[int] = ()
) -> tuple[Band, ...]:
    """The levels of `concept` a sentence names; () when it names none. For kidney and liver a
    level word counts only in the few words after a mention of the concept (`mentions`, token
    spans) and before a mention of another concept (`others`, token starts): in "Suy gan nặng,
    suy thận nặng" each "nặng" is its own organ's. Numbers (ml/min, weeks) are the concept's own."""
    bands = _numbers(sentence, concept)
    if concept == "pregnancy":
        return tuple(bands + _worded(sentence, concept))
    tokens, _ = word_places(sentence)
    windows = []
    for mention in mentions:
        end = min(len(tokens), mention.stop + MENTION_WINDOW)
        end = min([o for o in others if mention.stop <= o < end] + [end])
        windows.append(range(mention.start, end))  # a mention may be a level itself ("thẩm phân")
    return tuple(bands + _worded(sentence, concept, windows))


def patient_band(text: str | None, concept: str) -> Band:
    """The level the patient's state gives: a stated number first ("eGFR 50", "tuần 10"), then
    the words ("suy thận nặng"); the whole scale when it gives none."""
    scale = SCALES[concept]
    if not text:
        return scale
    found = _numbers(text, concept) or _worded(text, concept)
    if not found:
        return scale
    low, high = max(b[0] for b in found), min(b[1] for b in found)  # every stated detail holds
    return (low, high) if low < high else scale


def is_level(text: str, concept: str) -> bool:
    """Whether the text is one of the concept's level phrases and nothing more ("ba tháng đầu"
    is a stage of pregnancy however it is written: it needs no "thai kỳ" to be one)."""
    said = tuple(words(text))
    return any(phrase == said for phrase, _ in _phrases().get(concept, ()))


def relation(patient: Band, bands: Sequence[Band]) -> Relation | None:
    """Where the patient stands to a sentence's levels: None when it names none."""
    if not bands:
        return None
    covered = 0.0
    for low, high in _union(bands):
        covered += max(0.0, min(high, patient[1]) - max(low, patient[0]))
    if covered >= patient[1] - patient[0]:
        return "inside"
    return "outside" if covered == 0 else "unknown"


def _union(bands: Iterable[Band]) -> list[Band]:
    merged: list[Band] = []
    for low, high in sorted(bands):
        if merged and low <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged
