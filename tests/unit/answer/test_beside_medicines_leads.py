"""A drug asked beside the medicines a patient takes: beside what the patient's state read, the
question's best lines lead as in a one-drug reply (`answer.replies.beside_medicines`). On the
sample formulary."""

from __future__ import annotations

from pathlib import Path

from duocthu.tools.evals.answers import run_turns


def test_the_dose_line_for_the_patients_clearance_leads_beside_the_medicine_taken(tmp_path: Path) -> None:
    message = "digoxin duy trì cho cụ ClCr 35? Cụ cũng đang Lasix, có phải lo gì thêm không"
    answer = run_turns([message], tmp_path)[0].answer
    first = next(line for line in answer.splitlines() if line.startswith("- “"))
    assert "0,0625–0,125 mg/ngày hoặc cách ngày khi độ thanh thải 10–50 ml/phút" in first
    assert "Digoxin – Furosemid" in answer  # the pair still answered


def test_the_questions_best_lines_lead_where_no_state_of_the_patient_is_read(tmp_path: Path) -> None:
    # a finding asked of the drug added (tendons): its own lines on it lead, then the pairs
    message = (
        "Anh 45 tuổi đang Solupred vì viêm khớp, bị viêm tuyến tiền liệt, định cho Ciprobay. "
        "Có lo gì về gân không?"
    )
    answer = run_turns([message], tmp_path)[0].answer
    lines = answer.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("- “"))
    pairs = next(i for i, line in enumerate(lines) if line.startswith("• Ciprofloxacin – Prednisolon"))
    assert first < pairs and "gân" in lines[first]
