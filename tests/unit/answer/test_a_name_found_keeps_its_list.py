"""A which-drug question about a name without a monograph: when sections name it, their drugs are
the reply; the question's other words are read across the book only when no section names it (a
class before "nào" never turns the list found into the book's nearest sentences). Sample formulary."""

from __future__ import annotations

from pathlib import Path

from duocthu.tools.evals.answers import run_turns


def test_the_drugs_whose_sections_name_it_are_listed(tmp_path: Path) -> None:
    answer = run_turns(["BN uống tizanidin. kháng sinh nào CCĐ dùng chung"], tmp_path)[0].answer
    assert "Ciprofloxacin (tr." in answer and "Dùng đồng thời với tizanidin" in answer
    assert "Các câu gần nhất với câu hỏi" not in answer
