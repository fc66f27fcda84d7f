"""Whether this patient may take the one drug asked (`rules.decision`): one ask over the drug's
safety sections, never a dose, an interaction or a reaction read from a surface word; the cause of
a past reaction is a fact about the patient; a which-drug cue under a negation is told."""

from __future__ import annotations

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.frame import QueryFrame
from duocthu.models.plan import Plan
from duocthu.understanding.cues import scan_cues
from duocthu.understanding.pipeline import understand_offline
from duocthu.understanding.plan import plan_turn
from duocthu.understanding.reading import turn_reading
from duocthu.understanding.tags import tag_message


def _plan(resolver: CatalogDrugResolver, message: str) -> tuple[QueryFrame, Plan]:
    frame = understand_offline(message, resolver)
    return frame, plan_turn(frame, turn_reading(tag_message(message, resolver), frame, resolver), resolver)


@pytest.mark.parametrize(
    "message",
    [
        # a dose word, an age: the question is still whether, not how much
        "Cụ bà 85 tuổi đang buồn nôn, cho domperidon trước bữa ăn có được không?",
        "Ông 60 tuổi từng bị hội chứng Stevens-Johnson, giờ dùng lại allopurinol liều thấp được không?",
        # a condition after "cho người … bị" is the patient's, not a reaction asked about
        "có nên dùng ciprofloxacin cho người nhược cơ bị viêm bàng quang không?",
    ],
)
def test_a_patients_yes_or_no_about_one_drug_is_the_decision(
    resolver: CatalogDrugResolver, message: str
) -> None:
    frame, plan = _plan(resolver, message)
    assert frame.turn_type == "drug_attribute" and len(frame.drugs) == 1
    assert frame.attribute not in ("lieu_luong_va_cach_dung", "tac_dung_khong_mong_muon")
    ask = plan.main_ask
    assert ask is not None and ask.kind in ("monograph", "section")


def test_the_decision_beside_medicines_taken_reads_the_pairs_not_an_interaction_question(
    resolver: CatalogDrugResolver,
) -> None:
    frame, plan = _plan(
        resolver, "Ông 70 tuổi, eGFR 35, đang uống HCTZ và enalapril. Muốn bắt đầu allopurinol thì lo gì?"
    )
    assert (frame.turn_type, frame.drugs) == ("drug_attribute", ("allopurinol",))
    assert frame.patient_context.current_medications == ("HCTZ", "enalapril")  # the list goes on
    assert plan.reply == "beside_medicines" and plan.main_ask is not None
    assert plan.main_ask.with_patient
    # a medicine taken that the catalogue lacks is the patient's, never a name asked beside the drug
    assert plan.reading.joined_unknown_names == ()


def test_a_yes_or_no_decision_ranks_the_safety_sections_the_facts_name(resolver: CatalogDrugResolver) -> None:
    _, plan = _plan(resolver, "Ông 70 tuổi, đang dùng warfarin, dùng ibuprofen được không?")
    ask = plan.main_ask
    assert ask is not None and ask.with_patient
    assert ask.candidate_sections == ("chong_chi_dinh", "than_trong", "tuong_tac_thuoc")


@pytest.mark.parametrize(
    ("message", "attribute"),
    [
        ("Bé 3 tuổi 14 kg, cho paracetamol liều 250 mg được không?", "lieu_luong_va_cach_dung"),  # an amount
        ("Người suy thận dùng aciclovir có cần giảm liều không?", "lieu_luong_va_cach_dung"),  # a change
        ("Người già uống diazepam thì cần để ý những gì?", "than_trong"),  # the precautions asked
    ],
)
def test_a_quantity_or_a_section_asked_stays_asked(
    resolver: CatalogDrugResolver, message: str, attribute: str
) -> None:
    assert understand_offline(message, resolver).attribute == attribute


def test_a_past_reactions_cause_without_a_monograph_is_a_fact(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline(
        "Cách đây 2 năm tiêm ampicillin bị sốc phản vệ. Giờ dùng cefuroxim được không?", resolver
    )
    assert frame.drugs == ("cefuroxim",) and frame.unknown_drugs == ()
    assert any("(ampicillin)" in r for r in frame.patient_context.adverse_reactions)
    assert frame.turn_type == "drug_attribute" and frame.attribute != "tac_dung_khong_mong_muon"


def test_a_which_drug_cue_under_a_negation_is_told_not_asked(resolver: CatalogDrugResolver) -> None:
    assert not scan_cues("không dùng thuốc gì khác").has("candidate")
    assert scan_cues("không biết dùng thuốc gì").has("candidate")
    assert scan_cues("có nên uống X không hay dùng thuốc nào khác").has("candidate")
    frame = understand_offline(
        "Anh 40 tuổi bị viêm phổi, không dùng thuốc gì khác. Amoxicilin có dùng được không?", resolver
    )
    assert frame.drugs == ("amoxicilin",)


def test_laboratory_markers_are_no_drug_names(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline("BN đang methotrexat, HBsAg (+), HBV DNA cao. Dùng tiếp được không?", resolver)
    assert frame.unknown_drugs == () and frame.drugs == ("methotrexat",)
