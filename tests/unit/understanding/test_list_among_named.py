"""A which-drug question asked among three or more drugs it names ("amlodipin, losartan, enalapril,
furosemid: cái nào hay gây phù cổ chân?") lists only those of them whose sections name the finding,
and says which of them none names (`postconditions`, `retrieval.service`, `relation_list`). Two
drugs named are compared, each from its own lines. On the sample formulary."""

from __future__ import annotations

from pathlib import Path

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.tools.evals.answers import run_turns
from duocthu.understanding.pipeline import understand_offline


def test_a_list_asked_among_named_drugs_keeps_to_them(tmp_path: Path) -> None:
    message = "amlodipin, losartan, enalapril, furosemid - cái nào hay gây phù cổ chân?"
    answer = run_turns([message], tmp_path)[0].answer
    listed = [line for line in answer.splitlines() if line.startswith("- ")]
    assert listed[0].startswith("- Amlodipin") and "mắt cá chân" in listed[0]
    assert all(
        line.split(" (tr.")[0][2:] in ("Amlodipin", "Losartan", "Enalapril", "Furosemid") for line in listed
    )
    assert "Chỉ xét các thuốc bạn nêu: Amlodipin, Losartan, Enalapril, Furosemid." in answer


def test_two_drugs_named_are_compared_not_listed(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline("Kháng histamin nào ít gây buồn ngủ hơn: cetirizin hay loratadin?", resolver)
    assert frame.turn_type != "condition_relation"
