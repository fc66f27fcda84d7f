"""A drug asked beside the medicines a patient takes (`answer.replies.beside_medicines`): its
contraindications asked by name are quoted whole when none of their sentences names the patient,
never left a quick reply away. On the sample formulary."""

from __future__ import annotations

from pathlib import Path

from duocthu.tools.evals.answers import run_turns


def test_the_contraindications_asked_beside_medicines_taken_are_quoted_whole(tmp_path: Path) -> None:
    message = "BN nam 58t, đang aspirin 81 + Plavix, nay phát hiện loét tá tràng. Aspirin có CCĐ không"
    answer = run_turns([message], tmp_path)[0].answer
    assert "【Acid acetylsalicylic】 Chống chỉ định" in answer
    assert "Loét dạ dày tá tràng đang tiến triển" in answer
    assert "Acid acetylsalicylic – Clopidogrel" in answer  # the pair still read
