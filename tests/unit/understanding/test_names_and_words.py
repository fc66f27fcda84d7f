"""Issue 35's mechanisms, each on a class of questions: the clinical lexicon read once, ordinary
words and abbreviations never unknown drug names, drugs outside the catalogue named as such and
never corrected, a follow-up's unknown name asked beside the carried drug, patient facts as the
ward writes them, requests that are no formulary question, and an ask's candidate sections."""

from __future__ import annotations

from pathlib import Path

import pytest
from duocthu.catalog.ordinary_words import WORDS_FILE, derive_words, ordinary_word
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.catalog.world_drugs import spelling_key, world_drug
from duocthu.core.measures import extract_age
from duocthu.core.tables import data_lines
from duocthu.tools.evals.answers import run_turns
from duocthu.tools.evals.outsiders import first_quoted_line
from duocthu.understanding.cue_readings import section_matches
from duocthu.understanding.pipeline import understand_offline
from duocthu.understanding.plan import plan_turn
from duocthu.understanding.reading import turn_reading
from duocthu.understanding.tags import tag_message


def test_word_lists_come_from_the_package_and_real_drugs_from_the_atc_table() -> None:
    assert ordinary_word("stress") and ordinary_word("thuốc") and not ordinary_word("Glucotrazin")
    assert world_drug("Pantoprazole") and world_drug("lisinopril 10mg") and not world_drug("Zentamol")
    assert spelling_key("amoxicillin") == spelling_key("amoxicilin")


@pytest.mark.parametrize(
    "message",
    [
        "BN THA đang dùng losartan, CCĐ ntn?",
        "Paracetamol HDSD ghi gì về liều?",
        "Warfarin INR mục tiêu?",
        "Khoa HSTC hỏi amiodaron pha với gì?",
        "liệt kê thuốc hạ áp trong formulary: CCB, ƯCMC, ƯCTT",
    ],
)
def test_abbreviations_are_never_unknown_drug_names(resolver: CatalogDrugResolver, message: str) -> None:
    assert understand_offline(message, resolver).unknown_drugs == ()


def test_a_real_drug_outside_the_catalogue_is_never_corrected(resolver: CatalogDrugResolver) -> None:
    assert all(s.drug_id != "omeprazol" for s in resolver.suggest("pantoprazole"))
    frame = understand_offline("Lisinopril 10mg đổi sang enalapril thì tương đương bao nhiêu mg?", resolver)
    reading = turn_reading(tag_message(frame.standalone_query or "", resolver), frame, resolver)
    assert reading.outside_formulary == ("Lisinopril",) and reading.asks_computation


@pytest.mark.parametrize(
    ("history", "message", "drug"),
    [
        ("Warfarin tương tác với thuốc nào?", "Còn rifampicin thì sao?", "warfarin"),
        ("Liều paracetamol cho người lớn?", "Dùng với tramadol được không?", "paracetamol"),
    ],
)
def test_a_follow_ups_unknown_name_is_asked_beside_the_carried_drug(
    resolver: CatalogDrugResolver, history: str, message: str, drug: str
) -> None:
    frame = understand_offline(message, resolver, [history])
    assert (frame.turn_type, frame.drugs) == ("interaction", (drug,))
    plan = plan_turn(frame, turn_reading(tag_message(message, resolver), frame, resolver), resolver)
    assert plan.asks[0].kind == "together" and plan.asks[0].unknown_names == frame.unknown_drugs


@pytest.mark.parametrize(
    ("message", "names"),
    [
        ("Clarithromycin có tương tác gì?", ("Clarithromycin",)),
        ("simvastatin với clarithromycin", ("simvastatin", "clarithromycin")),
    ],
)
def test_the_interactions_of_names_outside_the_catalogue_are_read_in_other_monographs(
    resolver: CatalogDrugResolver, message: str, names: tuple[str, ...]
) -> None:
    frame = understand_offline(message, resolver)
    plan = plan_turn(frame, turn_reading(tag_message(message, resolver), frame, resolver), resolver)
    assert (plan.reply, plan.reason) == ("decline", "unknown_drug")
    ask = plan.asks[0]
    assert (ask.kind, ask.candidate_sections) == ("relation", ("tuong_tac_thuoc",))
    assert ask.unknown_names == names


def test_patient_facts_as_the_ward_writes_them(resolver: CatalogDrugResolver) -> None:
    assert extract_age("BN nam 58t gút") == ("58 tuổi", 58.0)
    pregnant = understand_offline("thai 8 tuan bi nam, cho uong fluconazol duoc khong?", resolver)
    assert pregnant.patient_context.pregnancy and pregnant.attribute == "thoi_ky_mang_thai"
    taking = understand_offline("BN đang Cordarone, bs định cho Motilium. Được không?", resolver)
    assert taking.turn_type == "interaction"


@pytest.mark.parametrize(
    "message",
    ["Dịch giúp tờ hướng dẫn của Zyrtec sang tiếng Anh", "Viết giúp bệnh án bệnh nhân dùng warfarin"],
)
def test_writing_or_translating_is_declined(resolver: CatalogDrugResolver, message: str) -> None:
    assert understand_offline(message, resolver).turn_type == "out_of_scope"


def test_a_computation_with_a_drug_quotes_its_dose_section(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline("Lasix ống 20mg/2ml, y lệnh 30mg TMC thì rút bao nhiêu ml?", resolver)
    assert (frame.turn_type, frame.drugs, frame.unknown_drugs) == ("dosing_calc", ("furosemid",), ())


def test_an_ask_carries_every_section_its_words_point_to() -> None:
    assert [
        *dict.fromkeys(
            m.value for m in section_matches("dấu hiệu ngộ độc digoxin là gì và khi nào dùng Fab?")
        )
    ][-1] == "qua_lieu_va_xu_tri"


def test_the_ordinary_words_file_is_what_wordfreq_gives() -> None:
    """The committed list is the derivation's output: rerun `python -m
    duocthu.catalog.ordinary_words` after changing the thresholds or wordfreq's version."""
    assert data_lines(WORDS_FILE) == tuple(derive_words())


@pytest.mark.parametrize(
    ("message", "turn_type", "drugs"),
    [
        # a section asked of one drug beside a medicine told as taken: that drug's section
        ("Đang warfarin vì rung nhĩ. Fluconazol liều nạp thế nào?", "drug_attribute", ("fluconazol",)),
        # a yes-or-no about the two: the two together
        ("Đang uống warfarin thì paracetamol liều cao có ảnh hưởng INR không?", "interaction", None),
        # the medicine taken written again where the turn asks: that drug is asked, the one started
        # beside it told (read beside it: `test_..._written_again_...`)
        ("Đang Coumadin, nay bắt đầu Cordarone. Warfarin giảm bao nhiêu?", "drug_attribute", ("warfarin",)),
        # every medicine named is one a pregnant patient takes: each, for her state
        (
            "Đang uống warfarin và aspirin, có thai 6 tuần thì sao?",
            "drug_attribute",
            ("warfarin", "acid_acetylsalicylic"),
        ),
    ],
)
def test_a_medicine_taken_is_asked_about_only_when_the_question_is_about_it(
    resolver: CatalogDrugResolver, message: str, turn_type: str, drugs: tuple[str, ...] | None
) -> None:
    frame = understand_offline(message, resolver)
    assert frame.turn_type == turn_type and (drugs is None or frame.drugs == drugs)
    assert frame.patient_context.current_medications


def test_a_medicine_taken_written_again_where_the_turn_asks_is_asked_beside_the_drug_started(
    resolver: CatalogDrugResolver, tmp_path: Path
) -> None:
    message = "BN đang uống digoxin, khoa tim mới thêm amiodaron. Digoxin có phải chỉnh liều không?"
    frame = understand_offline(message, resolver)
    assert frame.drugs == ("digoxin",) and "amiodaron" in frame.patient_context.current_medications
    # read beside the drug started: its line on the two leads, the interaction section follows
    reply = run_turns([message], tmp_path)[0].answer
    assert "amiodaron" in first_quoted_line(reply) and "【Digoxin】 Tương tác thuốc" in reply


def test_a_word_no_drug_list_holds_is_read_in_the_book_before_not_found(
    resolver: CatalogDrugResolver,
) -> None:
    # a term of the book ("Clostridioides difficile") or a made-up name: the lines naming it are
    # read first; a real drug outside the catalogue keeps its own decline
    message = "Hai thuốc PPI, cái nào có nhắc nguy cơ nhiễm Clostridioides difficile khi dùng?"
    frame = understand_offline(message, resolver)
    plan = plan_turn(frame, turn_reading(tag_message(message, resolver), frame, resolver), resolver)
    assert plan.reason == "unknown_drug"
    assert [(a.kind, a.unknown_names) for a in plan.asks] == [("book_lines", ("Clostridioides",))]


def test_a_which_drug_question_among_drugs_outside_the_book_says_they_have_none(
    resolver: CatalogDrugResolver, tmp_path: Path
) -> None:
    message = "Gây mê: sevofluran, ketamin, etomidat — thuốc nào ít ức chế tim mạch nhất ở BN suy tim?"
    frame = understand_offline(message, resolver)
    plan = plan_turn(frame, turn_reading(tag_message(message, resolver), frame, resolver), resolver)
    assert [(a.kind, a.unknown_names) for a in plan.asks] == [
        ("book_lines", ("sevofluran", "ketamin", "etomidat"))
    ]
    reply = run_turns([message], tmp_path)[0].answer
    assert "“sevofluran”, “ketamin”, “etomidat” không có chuyên luận riêng" in reply
