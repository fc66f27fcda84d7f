"""'May this patient take X?' for a patient who takes other medicines (`RetrievalService
.with_medicines_taken`): the drug's interaction part about them is in the answer, whatever the
ordering ranked, after the contraindication sentence about the patient; on the sample formulary."""

from __future__ import annotations

from pathlib import Path

from duocthu.tools.evals.answers import run_turns


def test_the_interaction_with_a_medicine_taken_is_quoted_after_the_contraindication(tmp_path: Path) -> None:
    message = (
        "Cụ bà 83 tuổi đang uống warfarin và digoxin, ClCr khoảng 28. "
        "Cụ đau khớp gối, có dùng được ibuprofen không?"
    )
    turn = run_turns([message], tmp_path)[0]
    assert turn.answer_lines is not None
    assert any(
        "suy thận nặng (độ thanh thải creatinin dưới 30 ml/phút)" in line.text
        for line in turn.answer_lines.lines
    )
    # ibuprofen's own sentence about warfarin, which the free-form ordering of the question ranks out
    assert (
        "Thuốc chống đông (warfarin, acenocoumarol, heparin): ibuprofen làm tăng nguy cơ chảy máu"
        in turn.answer
    )


def test_a_combination_the_contraindications_forbid_is_quoted_from_there(tmp_path: Path) -> None:
    # losartan's contraindications forbid it beside the class enalapril is in; its interaction
    # section names enalapril only for another risk
    message = (
        "BN 58t ĐTĐ có bệnh thận do ĐTĐ, đang Renitec 10mg. BS muốn thêm losartan 50 giảm đạm niệu. Ổn ko?"
    )
    answer = run_turns([message], tmp_path)[0].answer
    barred = "Không phối hợp losartan với thuốc ức chế enzym chuyển angiotensin ở người có bệnh thận do"
    assert barred in answer
    # cited from the section it stands in, before the interaction lines
    assert answer.index("Losartan – Chống chỉ định – tr.") < answer.index("Losartan – Tương tác thuốc – tr.")
