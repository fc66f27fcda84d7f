"""Drugs offered as a choice ("trong A, B, C thuốc nào …") are each read alone: the others' names
are no words of a drug's lines, so a line that only names them never leads, and the drug whose
line answers leads. Drugs told together are still read together. On the sample formulary."""

from __future__ import annotations

from pathlib import Path

from duocthu.tools.evals.answers import run_turns
from duocthu.tools.evals.outsiders import first_quoted_line


def test_among_named_drugs_the_drug_whose_line_answers_leads(tmp_path: Path) -> None:
    asked = [
        "Trong amlodipin, losartan, enalapril, thuốc nào hay gây phù ngoại vi?",
        "Sintrom đang ổn INR, giờ viêm âm đạo do trichomonas cần metronidazol 7 ngày. Cần làm gì?",
    ]
    choice, told = (turn.answer for turn in run_turns(asked, tmp_path))
    first = first_quoted_line(choice)
    assert "phù ngoại vi" in first and "Amlodipin" in choice.split(first, 1)[0] + first
    assert "losartan" not in first.lower()
    # told together, the line naming both leads
    assert "acenocoumarol" in first_quoted_line(told)


def test_a_choice_among_many_drugs_is_answered_for_each(tmp_path: Path) -> None:
    asked = "Giữa captopril, enalapril, losartan, amlodipin, furosemid: cái nào có chỉ định trong suy tim?"
    reply = run_turns([asked], tmp_path)[0].answer
    lines = [line for line in reply.splitlines() if line.startswith("- “")]
    for drug in ("Captopril", "Enalapril", "Losartan", "Amlodipin", "Furosemid"):
        assert any(f"({drug}, mục “" in line for line in lines), drug
