"""An ask flags a section asked whole (the reply budget keeps it) apart from a question about
something in it (its answering lines answer, and the section may leave past the budget)."""

from __future__ import annotations

import pytest
from duocthu.answer.replies import routed_sections
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.understanding.pipeline import understand_offline
from duocthu.understanding.plan import plan_turn
from duocthu.understanding.reading import turn_reading
from duocthu.understanding.tags import tag_message


@pytest.mark.parametrize(
    ("message", "whole"),
    [
        ("CCĐ của captopril là gì?", True),  # read through the clinical lexicon
        ("Liều paracetamol?", True),
        ("Tác dụng phụ của ibuprofen", True),
        ("Xem toàn mục Liều lượng và cách dùng của Colchicin", True),  # the budget's quick reply
        ("colchicin liều cơn gút cấp tối đa bao nhiêu?", False),  # a maximum
        ("Liều metformin khởi đầu cho người lớn?", False),  # a word beyond the section
        ("Bé 4 tuổi 15kg, liều cetirizin?", False),  # a patient
    ],
)
def test_a_section_asked_whole_is_told_from_a_focused_question(
    resolver: CatalogDrugResolver, message: str, whole: bool
) -> None:
    frame = understand_offline(message, resolver)
    plan = plan_turn(frame, turn_reading(tag_message(message, resolver), frame, resolver), resolver)
    ask = plan.asks[0]
    assert ask.kind == "section" and ask.whole_section is whole
    # the budget keeps the section only when it was asked whole
    assert routed_sections(plan) == ({(ask.drugs[0], ask.section_key)} if whole else set())
