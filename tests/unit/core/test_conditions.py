"""The conditions a text names (`core.conditions`)."""

from __future__ import annotations

import pytest
from duocthu.core.conditions import find_conditions


@pytest.mark.parametrize(
    ("message", "conditions"),
    [
        ("Tôi sốt ruột quá, uống thuốc gì cho đỡ lo?", []),  # anxious: no fever
        ("toi sot ruot qua", []),
        ("Người lao động bị đau lưng dùng thuốc gì?", ["đau lưng"]),  # labour: no tuberculosis
        ("Thuốc nào trị ho gà?", ["ho gà"]),  # whooping cough, not a cough
        ("Đau do bệnh thần kinh đái tháo đường dùng thuốc gì?", ["bệnh thần kinh đái tháo đường"]),
        ("Bệnh nhân thiếu máu cục bộ dùng thuốc gì?", ["thiếu máu cục bộ"]),  # ischaemia, not anaemia
        ("Thuốc nào phù hợp cho người đau đầu?", ["đau đầu"]),  # suitable: no oedema
        ("Thuốc nào trị phù?", ["phù"]),
        ("tac dung phu cua ibuprofen", []),  # "phu" unmarked is phụ as often as phù
    ],
)
def test_a_term_holding_a_findings_words_is_read_whole(message: str, conditions: list[str]) -> None:
    assert [c.normalized for c in find_conditions(message)] == conditions


def test_the_words_as_written_win_over_a_folded_reading() -> None:
    # "gan" has no marks, so it would also match "gân" folded; written as "viêm gan" it is the liver
    found = [(c.text, c.normalized) for c in find_conditions("Thuốc nào điều trị viêm gan?")]
    assert found == [("viêm gan", "viêm gan")]
    assert [c.normalized for c in find_conditions("Bị viêm gân gót chân")] == ["viêm gân"]
    # typed without any marks, both readings stay
    assert {c.normalized for c in find_conditions("thuoc tri viem gan")} == {"viêm gan", "viêm gân"}
