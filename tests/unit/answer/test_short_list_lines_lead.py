"""A which-drug list short enough to quote every drug found (or a patient table of them) leads with
those quoted lines; how the list was found follows them, and no drug is named twice
(`answer.replies.drug_list`, `answer.wording.preface_parts`). On the sample formulary."""

from __future__ import annotations

from pathlib import Path

from duocthu.tools.evals.answers import run_turns


def test_the_drugs_lines_lead_and_what_the_list_may_miss_follows(tmp_path: Path) -> None:
    answer = run_turns(["Thuốc nào điều trị tăng huyết áp?"], tmp_path)[0].answer
    lines = [line for line in answer.splitlines() if line.strip()]
    assert lines[0].startswith("Câu trong mục “Chỉ định” nêu tình trạng này")
    assert lines[1].startswith("- Captopril – Chỉ định – tr. ") and "Tăng huyết áp" in lines[1]
    assert "Các thuốc mà mục “Chỉ định” trong Dược thư có nêu tình trạng này" not in answer
    caveat = next(i for i, line in enumerate(lines) if line.startswith("Danh sách tìm theo cách Dược thư"))
    last_drug = max(i for i, line in enumerate(lines) if line.startswith("- ") and "– Chỉ định –" in line)
    assert caveat > last_drug


def test_a_patient_table_opens_the_reply_and_names_each_drug_once(tmp_path: Path) -> None:
    answer = run_turns(
        ["Bệnh nhân nữ 28 tuổi mang thai 7 tháng bị đau khớp, dùng thuốc giảm đau nào?"], tmp_path
    )[0].answer
    lines = [line for line in answer.splitlines() if line.strip()]
    assert lines[0].startswith("Đối chiếu với người bệnh:") and lines[1].startswith("Thuốc | Chỉ định")
    assert "Các thuốc mà mục “Chỉ định” trong Dược thư có nêu tình trạng này" not in answer
    caveat = next(i for i, line in enumerate(lines) if line.startswith("Danh sách tìm theo cách Dược thư"))
    assert caveat > next(i for i, line in enumerate(lines) if line.startswith("Trích dẫn về người bệnh"))
