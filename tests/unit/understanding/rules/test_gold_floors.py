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

from tests.conftest import ROOT

GOLD = ROOT / "tests" / "gold"


# The held-out half was written and committed before any tuning; it must never change.
HELD_OUT_SHA256 = "e3156ad51003e8a83ce79f70f239e4507b96246da471293c2eb021010ce0a9a3"


# Written by helpers who never saw the rules, committed before their first run; never tuned on.
BLIND_SHA256 = {
    "understanding_blind.jsonl": "e7429c935dcbc7d4c56326602621d9f5c03fa494c3b680ede1448ae320ef6419",
    "understanding_conversations_blind.jsonl": (
        "8b9da8f4970c25516800dacfc9eefac26e62c87a99a9a0f962590fd0b926ec4d"
    ),
    "understanding_turns_blind.jsonl": "e8a41e9a15361e10160aa64acf19abb31aca58a3d6e4a83e41492c58ff51825b",
    "understanding_final_blind.jsonl": "92ac3a7be2da768225e41775c134ca941a78b65151e22b80fcd0578f83e2f9bf",
    # never tuned on (docs/quality.md, "Sixth session")
    "vimedaqa_style_check.jsonl": "602626fbd3ced79d83485c52f68f3872e008826cccc7be6c4cdc02481d0ad147",
    # never tuned on (docs/quality.md, "Seventh session")
    "vimedaqa_style_check2.jsonl": "5f4f1c9bfa9cb174456935e4ede04af3150437a95e1b62f7e0c3840c8cae04e7",
    "understanding_direction_blind5.jsonl": (
        "c5ce0dabe5e1b97e363e550b878e9cb8ac073223a9146bc0a3b8112e597b4625"
    ),
    "understanding_direction_blind6.jsonl": (
        "edd0accfaba734efc7cf93d1832aa16ef9abc2d077d447bd8c2ef65108792c67"
    ),
    "understanding_direction_blind7.jsonl": (
        "8206eafbd510b2315a27d82fdef49a8a4e28aeee479ec2c84516d20125bc8f44"
    ),
    "understanding_direction_blind8.jsonl": (
        "7e65e0e82ab5f4bf08b897a2cb5426fa8319f2e35b7c900822654d3e68e5a705"
    ),
}


def _gold(name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (GOLD / name).read_text(encoding="utf-8").splitlines() if line]


def test_the_held_out_half_is_unchanged() -> None:
    assert hashlib.sha256((GOLD / "understanding_heldout.jsonl").read_bytes()).hexdigest() == HELD_OUT_SHA256


@pytest.mark.parametrize("name", sorted(BLIND_SHA256))
def test_the_blind_sets_are_unchanged(name: str) -> None:
    assert hashlib.sha256((GOLD / name).read_bytes()).hexdigest() == BLIND_SHA256[name]


@pytest.mark.parametrize(
    ("name", "floor"),
    [
        ("understanding_writers_dev.jsonl", 0.93),
        ("understanding_conversations_dev.jsonl", 0.95),
        # its veterinary rows list the drug an animal question names; a non-human frame names none
        ("understanding_turns_dev.jsonl", 0.87),
        ("understanding_direction_dev.jsonl", 0.95),
        ("understanding_direction_dev2.jsonl", 0.95),
        ("understanding_direction_dev3.jsonl", 0.93),
        ("vimedaqa_style_dev.jsonl", 0.87),
        # the odd ids only were developed on; the even ids are a measurement (docs/quality.md)
        ("understanding_direction_blind4.jsonl", 0.85),
        ("vimedaqa_style_dev2.jsonl", 0.87),
        ("vimedaqa_style_dev3.jsonl", 0.82),
        ("vimedaqa_style_dev4.jsonl", 0.79),
        ("understanding_direction_dev4.jsonl", 0.85),
        ("understanding_direction_dev5.jsonl", 0.88),
        ("vimedaqa_paraphrase_dev.jsonl", 0.88),
        ("understanding_direction_dev6.jsonl", 0.89),
    ],
)
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
    dev, held = _gold("understanding_dev.jsonl"), _gold("understanding_heldout.jsonl")
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
    mapping = read_title_map(GOLD / "vimedaqa_titles.tsv")
    kit = ROOT.parent / "shared" / "eval" / "vimedaqa-drug-validation.jsonl"
    if kit.exists():
        titles = {json.loads(line)["title"] for line in kit.read_text(encoding="utf-8").splitlines()}
        assert titles <= set(mapping)


def test_judged_labels_cover_the_kit_file_and_score_beside_the_title(resolver: CatalogDrugResolver) -> None:
    judged = read_judged(GOLD / "vimedaqa_judged.tsv")
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
