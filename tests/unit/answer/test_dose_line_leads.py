"""A dose line is quoted under the lead-in its paragraph opens with ("Trẻ em: … Đường uống có thể
nạp 10–20 mg/kg/ngày …"): a child's dose is never quoted as if it were anyone's; a lead-in of the
section heading's own words ("Cách dùng") is not repeated. On the sample formulary."""

from __future__ import annotations

from pathlib import Path

from duocthu.tools.evals.answers import run_turns


def test_a_childs_dose_line_is_quoted_under_its_paragraphs_lead_in(tmp_path: Path) -> None:
    answer = run_turns(["amiodaron uống: liều nạp bn, duy trì bn?"], tmp_path)[0].answer
    quoted = [line for line in answer.splitlines() if "10–20 mg/kg/ngày" in line and line.startswith("- “")]
    assert quoted and all(line.startswith("- “Trẻ em: … Đường uống") for line in quoted)
    assert "“Cách dùng: …" not in answer
