"""A which-drug list's line per drug names what its own section was searched for: a list over
chống chỉ định and a population's own section quotes, under chống chỉ định, the sentence naming
the population, never one that only holds the other section's avoidance wording ("không dùng").
On the sample formulary."""

from __future__ import annotations

from pathlib import Path

from duocthu.tools.evals.answers import run_turns


def test_each_listed_drug_is_quoted_with_its_own_sections_wording(tmp_path: Path) -> None:
    answer = run_turns(["Những thuốc nào không được dùng khi đang cho con bú?"], tmp_path)[0].answer
    contraindicated = answer.split("Mục “Chống chỉ định”", 1)[1].split("\nMục “Thời kỳ cho con bú” của", 1)[0]
    quoted = [line for line in contraindicated.splitlines() if line.startswith("- ")]
    assert any(line.startswith("- Amiodaron") for line in quoted)
    # each line's own quote, before the population's section seconding it
    own = [line.split(" Mục “Thời kỳ cho con bú”", 1)[0] for line in quoted]
    assert all("cho con bú" in line or "cho bú" in line for line in own)
    # the drug's nursing section seconds its contraindication, in its own words
    methotrexat = next(line for line in quoted if line.startswith("- Methotrexat"))
    assert "Mục “Thời kỳ cho con bú” (tr." in methotrexat and "Chống chỉ định cho con bú" in methotrexat
    assert "QT kéo dài bẩm sinh" not in answer


def test_a_finding_searched_as_the_book_writes_it_is_quoted_and_said(tmp_path: Path) -> None:
    # the words around the finding are no book's wording: the list is of "nhược cơ", each drug
    # quoted with its line naming it, and the reply says which words it searched
    question = "Những thuốc nào trong sách CCĐ hoặc phải thận trọng vì làm nặng nhược cơ?"
    answer = run_turns([question], tmp_path)[0].answer
    quoted = [line for line in answer.splitlines() if line.startswith("- ")]
    assert any(line.startswith("- Diazepam") for line in quoted)
    assert quoted and all("nhược cơ" in line for line in quoted)
    assert "danh sách tìm theo “nhược cơ”" in answer
