"""Age and weight limits a sentence states, read as data: "dưới 3 tháng tuổi", "dưới 16 tuổi",
"dưới 5 kg", "từ 2 đến dưới 6 tuổi", compared with the patient's age and weight.

A sentence about children that states limits applies to the patient only when the patient is
inside one of them: "Trẻ em dưới 3 tháng tuổi hoặc cân nặng dưới 5 kg" is not about a 3-year-old.
A limit on a measure the turn does not give (the weight of a child whose age only is stated)
decides nothing; when nothing the patient gives is measured by the sentence, it is unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from duocthu.core.text import nfc

_NUMBER = r"(\d+(?:[.,]\d+)?)"
# An age in days or weeks is written with "tuổi" ("28 ngày tuổi"); without it, "3–7 ngày" or
# "trên 3 tuần" is how long, never how old
_UNIT = r"(tháng|tuổi|tuần(?=\s+tuổi)|ngày(?=\s+tuổi)|kg)"
# "từ 2 đến dưới 6 tuổi" (a band), "dưới 16 tuổi", "dưới 3 tháng tuổi", "dưới 5 kg"
_BELOW = re.compile(rf"(?:\btừ\s+{_NUMBER}\s*{_UNIT}?\s+đến\s+)?\bdưới\s+{_NUMBER}\s*{_UNIT}\b")
_PER_YEAR = {"tuổi": 1.0, "tháng": 12.0, "tuần": 52.0, "ngày": 365.0}


@dataclass(frozen=True, slots=True)
class Limit:
    measure: Literal["age", "weight"]  # years or kg
    below: float
    from_: float = 0.0  # the band's lower end ("từ 2 đến dưới 6 tuổi"), 0 when open

    def holds(self, value: float) -> bool:
        return self.from_ <= value < self.below


def _value(number: str, unit: str) -> tuple[Literal["age", "weight"], float]:
    value = float(number.replace(",", "."))
    return ("weight", value) if unit == "kg" else ("age", value / _PER_YEAR[unit])


def limits_in(sentence: str) -> tuple[Limit, ...]:
    found = []
    for match in _BELOW.finditer(nfc(sentence).lower()):
        low_number, low_unit, number, unit = match.groups()
        measure, below = _value(number, unit)
        low = _value(low_number, low_unit or unit)[1] if low_number else 0.0
        found.append(Limit(measure, below, low))
    return tuple(found)


# A closed or open band without "dưới", as dose lines state them: "từ 2 đến 6 tuổi", "10 – 33 kg",
# "từ 12 tuổi trở lên", "trên 40 kg"
_CLOSED = re.compile(rf"(?:\btừ\s+)?{_NUMBER}\s*{_UNIT}?\s*(?:đến|[–-])\s*{_NUMBER}\s*{_UNIT}\b")
_FROM = re.compile(rf"\b(?:từ|trên)\s+{_NUMBER}\s*{_UNIT}\b(?!\s*(?:đến|[–-]))")
# An open band of children's ages ("Trẻ em từ 1 tuổi", not "trẻ từ 12 tuổi và người lớn") ends
# with childhood: an adult's age is outside it
_CHILD_FROM = re.compile(
    rf"(?<!người lớn và )\btrẻ(?:\s+em)?\s+(?:từ|trên)\s+{_NUMBER}\s*{_UNIT}\b"
    rf"(?!\s*(?:đến|[–-]))(?!(?:\s+\w+){{0,3}}\s+người lớn)"
)
ADULT_AGE = 18.0
# A sentence whose lead-in names children ("Trẻ em: dưới 5 tuổi …; trên 10 tuổi 1,5 mg/ngày") is a
# children's dose: each open age band in it ends with childhood too
_CHILDREN_LEAD = re.compile(r"^\s*trẻ(?:\s+em)?\b[^:]{0,40}:")
# A sentence about adults ("…, người lớn tiêm tĩnh mạch 10 mg") is for no young child, though it
# states no age; "liều như người lớn" compares, it names no one the sentence is for. The book's
# adult doses often start at 12 years, so only a child younger than that is outside it; an
# adult is never "inside" it (most of the book is about adults without saying so).
_ADULTS = re.compile(r"(?<!như )(?<!bằng )(?<!giống )(?<!với )\bngười lớn\b")
ADULT_LINE_FROM = 12.0
_CHILDREN = re.compile(r"\btrẻ\b")


def bands_in(sentence: str) -> tuple[Limit, ...]:
    """Every age or weight band a sentence states, `limits_in`'s and those without "dưới" (the
    upper end of "từ 2 đến 6 tuổi" taken as reached): for ranking a dose line by the patient,
    never for a contraindication's verdict."""
    lowered = nfc(sentence).lower()
    found = list(limits_in(sentence))
    for low, low_unit, high, unit in _CLOSED.findall(lowered):
        measure, top = _value(high, unit)
        found.append(
            Limit(
                measure,
                top + (1.0 if measure == "weight" else 1.0 / _PER_YEAR[unit]),
                _value(low, low_unit or unit)[1],
            )
        )
    children = {_value(low, unit) for low, unit in _CHILD_FROM.findall(lowered)}
    for_children = _CHILDREN_LEAD.match(lowered) is not None
    for low, unit in _FROM.findall(lowered):
        measure, bottom = _value(low, unit)
        child = (measure, bottom) in children or (for_children and measure == "age")
        top = ADULT_AGE if child and bottom < ADULT_AGE else float("inf")
        found.append(Limit(measure, top, bottom))
    return tuple(found)


def for_adults_only(sentence: str, age_years: float | None) -> bool:
    """A sentence naming adults, and no children, as whom it is for, read for a child younger than
    any adult dose starts (the sentence states no band of its own that the child is in:
    `patient_inside` first). One naming both ("… ở người lớn; ở trẻ em tiêm chậm …") is for both."""
    lowered = nfc(sentence).lower()
    young = age_years is not None and age_years < ADULT_LINE_FROM
    return young and _ADULTS.search(lowered) is not None and _CHILDREN.search(lowered) is None


def patient_inside(
    limits: tuple[Limit, ...], age_years: float | None, weight_kg: float | None
) -> bool | None:
    """True when the patient is inside one of the limits, False when the sentence measures what the
    patient gives and the patient is inside none, None when it measures nothing the patient gives
    (or states no limit)."""
    known = {"age": age_years, "weight": weight_kg}
    measured = [limit for limit in limits if known[limit.measure] is not None]
    if not measured:
        return None
    return any(limit.holds(known[limit.measure] or 0.0) for limit in measured)


_BAND = re.compile(r"(\d+(?:[.,]\d+)?)\s*[–-]\s*(\d+(?:[.,]\d+)?)\s*kg")
_OPEN_BAND = re.compile(r"\b(trên|từ|dưới)\s+(\d+(?:[.,]\d+)?)\s*kg")


def in_weight_band(sentence: str, weight: float) -> bool:
    """A weight band the sentence states ("11 – 15 kg", "trên 30 kg") holds this weight (a band
    of a table row: its other columns are not read)."""
    for low, high in _BAND.findall(sentence):
        if float(low.replace(",", ".")) <= weight <= float(high.replace(",", ".")):
            return True
    for bound, value in _OPEN_BAND.findall(sentence.lower()):
        limit = float(value.replace(",", "."))
        if (bound == "dưới" and weight < limit) or (bound in ("trên", "từ") and weight >= limit):
            return True
    return False


def patient_in_bands(sentence: str, age_years: float | None, weight_kg: float | None) -> bool | None:
    """`patient_inside` the bands a sentence states (`bands_in`); a sentence for adults only is
    outside for a young child (`for_adults_only`)."""
    inside = patient_inside(bands_in(sentence), age_years, weight_kg)
    return False if inside is None and for_adults_only(sentence, age_years) else inside
