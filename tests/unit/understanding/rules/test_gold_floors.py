"""The gold files (unchanged halves and blind sets, what they cover), the offline provider's floors
on the development sets, and the evaluation's scoring."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.vocabulary import TURN_TYPES
from duocthu.models.frame import QueryFrame
from duocthu.tools.evals.understanding import (
    FIELDS,
    attribute_ok,
    false_drugs,
    make_understander,
    read_judged,
    read_title_map,
    score_gold,
    score_vimedaqa,
)
from duocthu.understanding.rules.provider import OfflineFrameProvider

from tests import goldsets
from tests.conftest import ROOT

# The held-out and blind sets: listed with their sha256 pins in tests/gold/manifest.tsv.
UNDERSTANDING_PINNED = [row.file for row in goldsets.pinned() if row.file.startswith("understanding/")]


def _gold(name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in goldsets.path(name).read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.parametrize("name", UNDERSTANDING_PINNED)
def test_the_held_out_and_blind_sets_are_unchanged(name: str) -> None:
    # the held-out half was written and committed before any tuning; the blind sets were written by
    # helpers who never saw the rules, committed before their first run, never tuned on
    pin = next(row.sha256 for row in goldsets.pinned() if row.file == name)
    assert hashlib.sha256(goldsets.path(name).read_bytes()).hexdigest() == pin


# Each floor (tests/gold/manifest.tsv) is a little below today's figure, so a new row cannot
# quietly undo them; a file whose odd ids only were developed on is scored whole.
@pytest.mark.parametrize(("name", "floor"), goldsets.floors())
def test_other_writers_development_questions_stay_understood(
    resolver: CatalogDrugResolver, name: str, floor: float
) -> None:
    # Questions and conversations helpers wrote, as patients, relatives, students and clinicians,
    # never having seen the rules; the rules were tuned on them (docs/quality.md, "Fourth
    # session" to "Seventh session"). A floor a little below today's figure, so a new row cannot
    # quietly undo them.
    report = score_gold(_gold(name), make_understander(resolver, OfflineFrameProvider()))
    assert report.correct / report.questions >= floor


def test_gold_files_cover_what_the_issue_asks() -> None:
    dev = _gold("understanding/questions/dev-team.jsonl")
    held = _gold("understanding/questions/held-out-team.jsonl")
    rows = dev + held
    assert len(rows) >= 200 and len({r["id"] for r in rows}) == len(rows)
    assert {r["message"] for r in dev}.isdisjoint({r["message"] for r in held} - {"Xin chào"})
    for half in (dev, held):
        turn_types = {r["expect"]["turn_type"] for r in half if "turn_type" in r["expect"]}  # type: ignore[index,operator]
        assert turn_types == TURN_TYPES
        categories = Counter(r["category"] for r in half)
        for needed in (
            "continuation",
            "topic_change",
            "typo",
            "no_diacritics",
            "brand",
            "invented",
            "veterinary",
        ):
            assert categories[needed] >= 3
    assert all(set(r["expect"]) <= set(FIELDS) for r in rows)  # type: ignore[arg-type]


def test_title_map_covers_the_kit_file() -> None:
    mapping = read_title_map(goldsets.path("vimedaqa/titles.tsv"))
    kit = ROOT.parent / "shared" / "eval" / "vimedaqa-drug-validation.jsonl"
    if kit.exists():
        titles = {json.loads(line)["title"] for line in kit.read_text(encoding="utf-8").splitlines()}
        assert titles <= set(mapping)


def test_judged_labels_cover_the_kit_file_and_score_beside_the_title(resolver: CatalogDrugResolver) -> None:
    judged = read_judged(goldsets.path("vimedaqa/judged.tsv"))
    kit = ROOT.parent / "shared" / "eval" / "vimedaqa-drug-validation.jsonl"
    if kit.exists():
        ids = {json.loads(line)["question_idx"] for line in kit.read_text(encoding="utf-8").splitlines()}
        assert ids == set(judged)
    # `open`: the whole monograph read for a decision, a frame naming the drug and no section
    decision = QueryFrame(turn_type="drug_attribute", drugs=("metformin",))
    assert attribute_ok("open|chong_chi_dinh", decision)
    assert not attribute_ok("chong_chi_dinh", decision)
    assert not attribute_ok("open", QueryFrame(turn_type="drug_overview", drugs=("metformin",)))
    # a gold row may carry such a label as `asked`
    asked = [
        {
            "id": "a",
            "message": "Metformin có chống chỉ định gì?",
            "expect": {"asked": "chong_chi_dinh|than_trong"},
        },
        {"id": "b", "message": "Metformin có chống chỉ định gì?", "expect": {"asked": "none"}},
    ]
    graded = score_gold(asked, make_understander(resolver, OfflineFrameProvider()))
    assert (graded.correct, [row["id"] for row, _, _ in graded.failures]) == (1, ["b"])
    row = {"question_idx": "q_2", "question": "Metformin có chống chỉ định gì?", "title": "Lưu ý"}
    reports = score_vimedaqa(
        [row],
        {"Lưu ý": "than_trong"},
        lambda *_: decision.model_copy(update={"attribute": "chong_chi_dinh"}),
        resolver.catalog,
        {"q_2": ("chong_chi_dinh", "chong_chi_dinh|than_trong")},
    )
    dev = reports["dev"]
    # wrong for the title, right for both annotators, and the title disagrees with annotator a
    assert (dev.attribute_right, dev.judged, dev.judged_right, dev.title_agrees) == (0, 1, [1, 1, 1], 0)


def test_never_attribute_scores_a_section_the_frame_must_not_name(resolver: CatalogDrugResolver) -> None:
    understander = make_understander(resolver, OfflineFrameProvider())
    row = {"id": "n1", "message": "Người suy thận có được chỉ định metformin không?", "expect": {}}
    assert score_gold([{**row, "expect": {"never_attribute": "chi_dinh"}}], understander).correct == 1
    indication = {**row, "message": "Metformin được chỉ định trong trường hợp nào?"}
    assert score_gold([{**indication, "expect": {"never_attribute": "chi_dinh"}}], understander).correct == 0


def test_a_conversation_row_is_understood_turn_by_turn(resolver: CatalogDrugResolver) -> None:
    understander = make_understander(resolver, OfflineFrameProvider())
    row = {
        "id": "c1",
        "turns": ["Liều paracetamol cho người lớn?", "Thế còn tác dụng phụ?"],
        "message": "Còn ibuprofen thì sao?",
        "expect": {"drugs": ["ibuprofen"], "attribute": "tac_dung_khong_mong_muon"},
    }
    assert score_gold([row], understander).correct == 1
    # without its earlier turns the same message has no section to repeat
    assert score_gold([{**row, "turns": []}], understander).correct == 0


def test_attribute_scoring_and_false_drugs(resolver: CatalogDrugResolver) -> None:
    frame = QueryFrame(turn_type="drug_overview", attribute="chi_dinh")
    assert attribute_ok("overview|dang_thuoc_va_ham_luong", frame)  # an intro section is an overview
    assert not attribute_ok("none", frame) and attribute_ok("none", QueryFrame(turn_type="out_of_scope"))
    assert attribute_ok("than_trong|chong_chi_dinh", frame.model_copy(update={"attribute": "chong_chi_dinh"}))
    catalog = resolver.catalog
    named = QueryFrame(turn_type="drug_overview", drugs=("acid_acetylsalicylic",))
    assert false_drugs("Trường hợp không dùng thuốc Aspirin", named, catalog) == []
    assert false_drugs("Aspirinol là thuốc gì?", named, catalog) == ["acid_acetylsalicylic"]
