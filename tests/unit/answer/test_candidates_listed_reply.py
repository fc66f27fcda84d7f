"""A which-drug question that lists its candidates is answered among them only: the candidates whose
section names the finding are quoted, each other candidate is named as not naming it (never as safe),
and no drug outside the list is offered. On the sample formulary, end to end."""

from __future__ import annotations

from pathlib import Path

from duocthu.tools.evals.answers import run_turns


def test_only_the_candidates_are_read_and_each_is_said(tmp_path: Path) -> None:
    question = (
        "Trong azithromycin, cefuroxim, amoxicilin, ciprofloxacin: kháng sinh nào cần tránh ở BN QT kéo dài "
        "bẩm sinh?"
    )
    answer = run_turns([question], tmp_path)[0].answer
    quoted = [line for line in answer.splitlines() if line.startswith("- ")]
    assert {line.split(" (tr.")[0] for line in quoted} == {"- Azithromycin", "- Ciprofloxacin"}
    # each under every section naming it: its contraindication, then its caution
    assert all("QT" in line for line in quoted) and sum("QT kéo dài bẩm sinh" in line for line in quoted) == 2
    said = next(line for line in answer.splitlines() if line.startswith("Trong các thuốc bạn nêu"))
    assert "Cefuroxim" in said and "Amoxicilin" in said and "không có nghĩa là dùng được" in said
    assert "Amiodaron" not in answer and "Domperidon" not in answer  # named by the book, not listed


def test_a_name_without_a_monograph_is_looked_up_among_the_candidates(tmp_path: Path) -> None:
    question = (
        "Có BN migraine uống ergotamin. Trong azithromycin, ciprofloxacin, amoxicilin thuốc nào không được "
        "dùng chung"
    )
    answer = run_turns([question], tmp_path)[0].answer
    assert "ngộ độc nấm cựa gà" in answer
    said = next(line for line in answer.splitlines() if line.startswith("Trong các thuốc bạn nêu"))
    assert "Ciprofloxacin" in said and "Amoxicilin" in said and "Azithromycin" not in said


def test_candidates_beside_the_medicine_taken_are_each_paired_with_it_only(tmp_path: Path) -> None:
    """ "đang warfarin; trong A, B, C cái nào …": each candidate with warfarin, never with another."""
    taken = "Bệnh nhân đang warfarin."
    listed = (
        "Trong danh sách có amiodaron, fluconazol, carbamazepin — cái nào làm tăng INR, cái nào làm giảm?"
    )
    answer = run_turns([f"{taken} {listed}"], tmp_path)[0].answer
    pairs = [line for line in answer.splitlines() if line.startswith("• ")]
    assert pairs and all(line.startswith("• Warfarin – ") for line in pairs)
    assert {line.split(" – ")[1].split(" ")[0].rstrip(":") for line in pairs} == {
        "Amiodaron",
        "Fluconazol",
        "Carbamazepin",
    }
    assert "Thuốc làm giảm tác dụng chống đông" in answer
