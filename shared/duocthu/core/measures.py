"""Measures a turn states about the patient: weight and age, read from the folded text.

Pure functions of the text; the frame's validation and the safety facets share their bounds.
"""

from __future__ import annotations

import re

from duocthu.core.text import fold, nfc

# A weight above this is a typing slip, never a patient (the frame drops it).
MAX_WEIGHT_KG = 500.0
# "12 kg", "8kg", "nặng 12 cân"; never the "/kg" of a dose rate ("1 mg/kg").
_WEIGHT = re.compile(r"(?<![\w/.,])(\d+(?:[.,]\d+)?)\s*(?:kg|kgs|ki lo|kilo|kilogam|kilogram|can|ky)\b")
# "58t", "4t" is the ward's way to write "58 tuổi"
_AGE = re.compile(r"(?<![\w/.,])(\d+(?:[.,]\d+)?)\s*(tuoi|thang tuoi|tuan tuoi|ngay tuoi|(?<=\d)t)\b")
_AGE_WORDS = {
    "t": "tuổi",
    "tuoi": "tuổi",
    "thang tuoi": "tháng tuổi",
    "tuan tuoi": "tuần tuổi",
    "ngay tuoi": "ngày tuổi",
}
# "Bé trai 6 tháng", "Trẻ 18 tháng": months, weeks or days right after a word for the child are its
# age without "tuổi" ("ho 6 tháng nay", words between, is a duration, never an age).
_CHILD_AGE = re.compile(
    r"\b(?:be|tre|chau|con)(?:\s+(?:trai|gai|toi|minh|em))?\s+(\d+(?:[.,]\d+)?)\s*(thang|tuan|ngay)\b(?!\s+(?:nay|truoc|qua))"
)
# A sentence of the book conditional on a dose ("liều cao, kéo dài", "khi dùng liều trên 100
# mg/ngày"): it speaks of that dose only. Read on the marked text.
NAMES_A_DOSE = re.compile(r"\bliều\b|\d\s*(?:mg|g|mcg|µg|UI|IU)\b", re.IGNORECASE)
# An amount of a drug: a number with a unit of mass, volume or activity (a dose line that states one
# gives the dose; one without says how to adjust or watch it)
STATES_AMOUNT = re.compile(r"\d\s*(?:mg|g|mcg|µg|microgam|UI|IU|đơn vị|ml)\b", re.IGNORECASE)
# Age bands for a population stated only as an age: under 18 is a child (the formulary's paediatric
# doses run to adolescence), 65 and over is elderly.
CHILD_BELOW_YEARS = 18.0
ELDERLY_FROM_YEARS = 65.0


def _number(text: str) -> float:
    return float(text.replace(",", "."))


def extract_weight(text: str) -> float | None:
    for match in _WEIGHT.finditer(fold(nfc(text))):
        weight = _number(match.group(1))
        if 0 < weight <= MAX_WEIGHT_KG:
            return weight
    return None


def extract_age(text: str) -> tuple[str | None, float | None]:
    """The age as stated ("5 tuổi", "3 tháng tuổi") and in years."""
    folded = fold(nfc(text))
    match = _AGE.search(folded)
    if not match:
        child = _CHILD_AGE.search(folded)
        if not child:
            return None, None
        value, unit = _number(child.group(1)), f"{child.group(2)} tuoi"
        years = value / {"thang tuoi": 12, "tuan tuoi": 52, "ngay tuoi": 365}[unit]
        return f"{child.group(1)} {_AGE_WORDS[unit]}", years
    value, unit = _number(match.group(1)), match.group(2)
    years = value / {"t": 1, "tuoi": 1, "thang tuoi": 12, "tuan tuoi": 52, "ngay tuoi": 365}[unit]
    return f"{match.group(1)} {_AGE_WORDS[unit]}", years
