"""Laboratory values (data/lab_names.tsv): the value a patient's turn states ("K+ 5,4 mmol/l",
"INR 4") and the bands a formulary sentence states ("kali huyết thanh trên 5,0 mmol/l", "INR
trên 8–9"), so a sentence about a band is read against the patient's own number, as an age or a
clearance is (`retrieval.limits`, `retrieval.levels`).

A value is a name then its number, a band a name, a comparison and a number, with at most a
few words between ("kali máu hôm nay 5,4", "kali huyết không quá 5,0 mmol/l"). A number outside
the lab's range, or with another unit, is no such value ("losartan kali 50 mg"). A value outside
its reference range, or a lab said to be low or high ("Mg cũng thấp"), is a state the patient has
(data/lab_states.tsv)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache

from duocthu.core.tables import table_records
from duocthu.core.text import fold, nfc

Band = tuple[float, float]  # low inclusive, high exclusive

_NUMBER = r"(\d+(?:[.,]\d+)?)"
_UNIT = r"\s*(mmol/l|mmol/lit|mmol|meq/l|ms|mg/dl|µmol/l|umol/l|mg|g|ml|%)?"
# between a band's name and its comparison: "huyết thanh", "đã", "khi bắt đầu"
_BETWEEN = r"(?:\s+[^\W\d]+){0,3}?"
# between a value's name and its number ("kali máu hôm nay 5,4"); a value told of an earlier time
# ("kali lần trước 3,3", "INR hôm qua 2") is history, not the patient's value now
_VALUE_BETWEEN = r"(?:\s+(?!(?:truoc|qua|cu)\b)[^\W\d]+){0,3}?"
# a number followed by one of these measures something else ("kali bình thường 2 tuần nay")
_OTHER_UNIT = r"(?:kg|tuoi|t|thang|tuan|ngay|nam|gio|vien|lan)\b"
# read on the folded text: "trên", "vượt", "dưới", "không quá", "từ"
_COMPARISON = r"(tren|vuot|duoi|khong qua|tu|>|≥|<|≤)"


@dataclass(frozen=True)
class Lab:
    lab: str
    unit: str | None
    low: float
    high: float

    def holds(self, value: float, unit: str | None) -> bool:
        unit_fits = unit is None or self.unit is None or fold(unit).startswith(fold(self.unit)[:4])
        return unit_fits and self.low <= value <= self.high


@cache
def _labs() -> tuple[Mapping[str, Lab], re.Pattern[str], re.Pattern[str]]:
    by_phrase: dict[str, Lab] = {}
    for row in table_records("lab_names.tsv"):
        unit = None if row["unit"] == "-" else row["unit"]
        by_phrase[fold(row["phrase"])] = Lab(row["lab"], unit, float(row["low"]), float(row["high"]))
    names = "|".join(re.escape(p) for p in sorted(by_phrase, key=len, reverse=True))
    value = re.compile(
        rf"(?<![\w+])({names})(?![\w+]){_VALUE_BETWEEN}\s*(?:[:=]|la|khoang|con)?\s*{_NUMBER}{_UNIT}(?!\s*{_OTHER_UNIT})"
    )
    band = re.compile(
        rf"(?<![\w+])({names})(?![\w+]){_BETWEEN}\s+{_COMPARISON}\s*{_NUMBER}(?:\s*[–-]\s*{_NUMBER})?{_UNIT}"
    )
    return by_phrase, value, band


def _number(text: str) -> float:
    return float(text.replace(",", "."))


def lab_name(token: str) -> bool:
    """Whether a word names a laboratory value ("INR", "K+"): with a number after it, a value,
    never a product and its strength."""
    return fold(nfc(token)) in _labs()[0]


# "1) … 2) …": a message numbering its questions; a number so written marks one, no value of a
# lab whose name is a chat word before it ("dùng tiếp được k 2) nếu ko …": "k" is "không")
_LIST_MARKER = re.compile(r"(?<![\w.,])(\d{1,2})\)")


def _list_markers(folded: str) -> set[int]:
    """Where the numbers of a numbered list stand: two or more "N)", the first "1)"."""
    found = list(_LIST_MARKER.finditer(folded))
    return {m.start(1) for m in found} if len(found) > 1 and found[0][1] == "1" else set()


def _values(written: str) -> Iterator[tuple[re.Match[str], Lab, float]]:
    """Each value the text states, with its lab and number (a number outside the lab's range or
    in another unit is none, and so is a number marking a question of a list); `written` NFC,
    read folded, positions kept."""
    by_phrase, value, _ = _labs()
    folded = fold(written)
    markers = _list_markers(folded)
    for m in value.finditer(folded):
        lab, number = by_phrase[m[1]], _number(m[2])
        if lab.holds(number, m[3]) and m.start(2) not in markers:
            yield m, lab, number


def patient_labs(text: str) -> dict[str, float]:
    """The laboratory values a patient's text states, by lab: the first of each."""
    found: dict[str, float] = {}
    for _, lab, number in _values(nfc(text)):
        found.setdefault(lab.lab, number)
    return found


def stated_labs(text: str) -> tuple[str, ...]:
    """The laboratory values a text states, as written ("K+ 5,4 mmol/l")."""
    written = nfc(text)
    if len(fold(written)) != len(written):  # positions of the folded text are not the written's
        return ()
    return tuple(written[m.start() : m.end()].strip() for m, _, _ in _values(written))


def lab_bands(sentence: str) -> dict[str, list[Band]]:
    """The bands a sentence states, by lab: "trên 5,0" is above it, "không quá 5,0" up to it."""
    by_phrase, _, band = _labs()
    found: dict[str, list[Band]] = {}
    for m in band.finditer(fold(nfc(sentence))):
        lab, compare, low = by_phrase[m[1]], m[2], _number(m[3])
        if not lab.holds(low, m[5]):
            continue
        if m[4] is not None:  # a range: "trên 8–9" reads from its low end
            high = _number(m[4])
            span = (low, lab.high) if compare in ("tren", "vuot", ">", "≥", "tu") else (low, high)
        elif compare in ("tren", "vuot", ">"):
            span = (low + 1e-9, lab.high + 1)
        elif compare in ("≥", "tu"):
            span = (low, lab.high + 1)
        elif compare in ("duoi", "<"):
            span = (lab.low - 1, low)
        else:  # "không quá", "≤"
            span = (lab.low - 1, low + 1e-9)
        found.setdefault(lab.lab, []).append(span)
    return found


def lab_relation(sentence: str, values: Mapping[str, float]) -> str | None:
    """ "inside" when a band the sentence states holds the patient's value of its lab, "outside"
    when it states bands of a lab the patient has a value for and none holds it, else None."""
    found = None
    for lab, bands in lab_bands(sentence).items():
        if lab not in values:
            continue
        if any(low <= values[lab] < high for low, high in bands):
            return "inside"
        found = "outside"
    return found


# "kali thấp", "Na+ hơi giảm": a lab said low or high, on the folded text ("k" only before a number)
_DIRECTION = {"thap": 0, "giam": 0, "ha": 0, "cao": 1, "tang": 1}


@cache
def _states() -> tuple[Mapping[str, tuple[float | None, float | None, str, str]], re.Pattern[str]]:
    states: dict[str, tuple[float | None, float | None, str, str]] = {}
    for row in table_records("lab_states.tsv"):
        below = None if row["below"] == "-" else float(row["below"])
        above = None if row["above"] == "-" else float(row["above"])
        states[row["lab"]] = (below, above, row["low_state"], row["high_state"])
    names = "|".join(re.escape(p) for p in sorted(_labs()[0], key=len, reverse=True) if len(p) > 1)
    said = re.compile(
        rf"(?<![\w+])({names})(?![\w+])\s+(?:cung\s+|hoi\s+|rat\s+|bi\s+)?({'|'.join(_DIRECTION)})\b"
    )
    return states, said


def lab_states(text: str) -> tuple[str, ...]:
    """The states the patient's laboratory values put them in, in the formulary's words: a value
    outside its reference range, or a lab said low or high."""
    states, said = _states()
    found: list[str] = []
    for lab, value in patient_labs(text).items():
        below, above, low, high = states.get(lab, (None, None, "-", "-"))
        if below is not None and value < below:
            found.append(low)
        elif above is not None and value > above:
            found.append(high)
    by_phrase = _labs()[0]
    for m in said.finditer(fold(nfc(text))):
        lab = by_phrase[m[1]].lab
        if lab in states:
            _, _, low, high = states[lab]
            found.append(high if _DIRECTION[m[2]] else low)
    return tuple(dict.fromkeys(s for s in found if s != "-"))


# A genetic marker told positive ("HLA-B*1502 (+)", "HLA-B*15:02 dương tính"): the patient carries
# the allele, which the book names as written ("Người mang alen HLA-B*1502")
_MARKER_POSITIVE = re.compile(
    r"\b(HLA-[A-Z]+)\s*\*\s*(\d{2}):?(\d{2})\s*(?:\(\+\)|\+|dương tính|duong tinh|\(dương tính\))",
    re.IGNORECASE,
)


def markers_carried(text: str) -> tuple[str, ...]:
    """The genetic markers the turn tells the patient tests positive for, as the book writes them."""
    found = (f"{m[1].upper()}*{m[2]}{m[3]}" for m in _MARKER_POSITIVE.finditer(nfc(text)))
    return tuple(dict.fromkeys(found))
