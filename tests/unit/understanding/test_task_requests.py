"""A task asked of the assistant: a verb of a task with a word of asking a favour beside it
(understanding.task_requests), read as a request no section answers (a `not_covered` cue)."""

from __future__ import annotations

import pytest
from duocthu.core.text import segment_ids, words
from duocthu.understanding.cues import scan_cues
from duocthu.understanding.task_requests import tasks_requested


def _kinds(text: str) -> list[str]:
    return sorted(kind for _, _, kind in tasks_requested(words(text), segment_ids(text, ".;:!?\n,")))


@pytest.mark.parametrize(
    ("message", "kinds"),
    [
        ("In giúp cái nhãn dán chai hỗn dịch amoxicilin", ["write"]),
        ("giúp em soạn 1 tờ hướng dẫn cho BN", ["write"]),
        ("Tính ClCr Cockcroft-Gault giùm, rồi còn dùng metformin đc ko", ["compute"]),
        ("mắt đỏ, ngứa, chảy nước trong, chẩn đoán giùm", ["diagnose"]),
        ("viet giup to huong dan dung thuoc", ["write"]),
        # looking up is the assistant's own work; a verb without a favour asked is any question's word
        ("tra giúp em liều paracetamol", []),
        ("Thuốc này có làm hạ đường huyết không, tính liều sao", []),
        # a favour in another clause asks nothing of this verb
        ("liều tính theo cân nặng, giúp em với", []),
        # typed without marks "ho" is a cough as often as "hộ"; typed with marks it is one
        ("enalapril lam ho khan ko", []),
        ("Enalapril làm ho khan không?", []),
    ],
)
def test_a_task_is_a_verb_with_a_favour_asked_beside_it(message: str, kinds: list[str]) -> None:
    assert _kinds(message) == kinds


def test_a_task_asked_is_a_request_no_section_answers() -> None:
    cues = scan_cues("In giúp cái nhãn dán chai hỗn dịch amoxicilin")
    assert [(c.kind, c.value) for c in cues.all("not_covered")] == [("not_covered", "write")]


def test_an_amount_of_a_form_asked_beside_its_strength_is_a_conversion() -> None:
    def kinds(text: str) -> list[str]:
        return [c.value for c in scan_cues(text).all("not_covered")]

    assert kinds("nhà chỉ có viên 5mg — vậy ngày mấy viên?") == ["compute"]
    assert kinds("siro 2mg/5ml sang viên 4mg thì tương đương mấy viên?") == ["compute"]
    # no strength of the form stated: the dose asked in the form's units is the book's to quote
    assert kinds("Paracetamol người lớn uống mấy viên một lần?") == []
    # a strength with no amount of the form asked
    assert kinds("Zyrtec giọt 10mg/ml dùng cho bé mấy tuổi?") == []
