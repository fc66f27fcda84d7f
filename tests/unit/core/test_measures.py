"""The patient's weight and age as a text states them (`core.measures`)."""

from __future__ import annotations

import pytest
from duocthu.core.measures import extract_age, extract_weight


@pytest.mark.parametrize(
    ("text", "weight"),
    [
        ("trẻ 12 kg", 12.0),
        ("bé nặng 8kg", 8.0),
        ("nặng 12,5 kg", 12.5),
        ("1 mg/kg cho người 50 kg", 50.0),
        ("liều 1 mg/kg", None),
        ("nặng 600 kg", None),
        ("nang 14 can", 14.0),
    ],
)
def test_weight(text: str, weight: float | None) -> None:
    assert extract_weight(text) == weight


def test_age() -> None:
    assert extract_age("Trẻ 3 tháng tuổi") == ("3 tháng tuổi", 0.25)
    assert extract_age("bé 5 tuoi") == ("5 tuổi", 5.0)


def test_months_right_after_a_word_for_the_child_are_its_age_and_a_duration_is_not() -> None:
    assert extract_age("Bé trai 6 tháng nặng 7 kg sốt 39 độ") == ("6 tháng tuổi", 0.5)
    assert extract_age("Trẻ 18 tháng, nặng 11 kg, tiêu chảy") == ("18 tháng tuổi", 1.5)
    assert extract_age("Bé bị ho 6 tháng nay") == (None, None)
    assert extract_age("bé 2 tuần nay bị ho") == (None, None)
