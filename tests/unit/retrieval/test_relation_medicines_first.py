"""A which-drugs-cause list for a patient who takes medicines names those medicines first, when
their sections name the finding (`retrieval.reverse.relation`, `retrieval.service`). On the
sample formulary."""

from __future__ import annotations

from pathlib import Path

from duocthu.tools.evals.answers import run_turns


def test_the_patients_own_medicine_leads_a_which_drug_cause_list(tmp_path: Path) -> None:
    message = "Cụ bà 81t đang Prozac 20mg, hạ natri máu. Thuốc nào có thể gây hạ natri máu?"
    answer = run_turns([message], tmp_path)[0].answer
    listed = [line for line in answer.splitlines() if line.startswith("- ")]
    assert listed and listed[0].startswith("- Fluoxetin") and "hạ natri máu" in listed[0]
