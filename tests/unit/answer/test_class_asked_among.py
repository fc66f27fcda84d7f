"""A which-drug list asked among a class of the book's class table ("NSAID nào …"): the class's
members only, and the list says so (`answer.replies.relation_list`, `retrieval.service`). On the
sample formulary."""

from __future__ import annotations

from pathlib import Path

from duocthu.tools.evals.answers import run_turns


def test_a_list_asked_among_a_class_lists_its_members_only(tmp_path: Path) -> None:
    answer = run_turns(["Thuốc chống đông máu đường uống nào chống chỉ định ở phụ nữ có thai?"], tmp_path)[
        0
    ].answer
    assert "Chỉ gồm các thuốc mà mục “Loại thuốc” xếp vào nhóm “Thuốc chống đông máu”" in answer
    assert "Acenocoumarol" in answer and "Warfarin" in answer and "Captopril" not in answer
