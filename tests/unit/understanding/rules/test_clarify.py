"""The questions asked back (`rules.clarify`): a misspelt name offered, a drug asked for, a patient
described with the question still to come; through the offline pipeline."""

from __future__ import annotations

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.understanding.pipeline import understand_offline

from tests.unit.understanding.turns import conversation


def test_only_exact_hits_become_drugs_and_suggestions_become_a_question(
    resolver: CatalogDrugResolver,
) -> None:
    frame = understand_offline("Tác dụng phụ của amoxiciline?", resolver)
    assert frame.drugs == () and frame.needs_clarify
    assert frame.quick_replies == ("Amoxicilin",) and "Ý bạn là Amoxicilin?" in (frame.clarify_reason or "")
    assert frame.attribute == "tac_dung_khong_mong_muon" and "amoxiciline" in frame.unknown_drugs


def test_a_missing_drug_is_asked_for(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline("Liều dùng cho trẻ em thế nào?", resolver)
    assert frame.needs_clarify and frame.turn_type == "drug_attribute" and frame.population == "tre_em"


def test_a_patient_told_about_stays_for_the_question_that_follows(resolver: CatalogDrugResolver) -> None:
    # a statement with a verb of taking names the patient's medicine, without "đang"
    told = conversation(resolver, "Má tui xài Plavix sau đặt stent.")
    assert told.needs_clarify and told.patient_context.current_medications == ("Plavix",)
    then = conversation(
        resolver, "Má tui xài Plavix sau đặt stent.", "bả bị đau bao tử, xài omeprazol được hông?"
    )
    assert (then.turn_type, set(then.drugs)) == ("interaction", {"clopidogrel", "omeprazol"})
    # a described patient is asked what to look up, and keeps through a question back
    pregnant = conversation(resolver, "Em đang mang bầu 3 tháng.", "thuốc này xài được hông?")
    assert pregnant.needs_clarify and pregnant.population == "phu_nu_co_thai"
    child = conversation(resolver, "Con tui 2 tuổi, nặng 12 ký.", "liều bao nhiêu?")
    assert child.needs_clarify and (child.population, child.weight_kg) == ("tre_em", 12.0)
    # a condition told before is the one a bare which-drug question asks about
    which = conversation(resolver, "Má tui bị tăng huyết áp lâu năm rồi.", "xài thuốc gì để hạ áp dzậy?")
    assert (which.turn_type, which.indication) == ("condition_to_drug", "tăng huyết áp")
    # a pain told is not a question ("đau" is not "đâu"), so the medicine told beside it is the patient's
    pain = understand_offline("Má tui xài Plavix, bả hay đau đầu.", resolver)
    assert (pain.turn_type, pain.patient_context.current_medications) == ("symptom_to_drug", ("Plavix",))
    # "đang uống á" names no medicine
    assert understand_offline("bà hàng xóm đang uống á", resolver).patient_context.current_medications == ()


def test_a_patient_described_without_a_question_is_asked_what_to_look_up(
    resolver: CatalogDrugResolver,
) -> None:
    said = understand_offline("Tôi đang dùng warfarin", resolver)
    assert said.needs_clarify and said.drugs == ()
    assert said.patient_context.current_medications == ("warfarin",)
    history = ("Tôi đang dùng warfarin",)
    # the next turn is about that patient: a drug asked about is checked against warfarin ...
    then = understand_offline("Có uống được paracetamol không?", resolver, history, said)
    assert (then.turn_type, then.drugs) == ("interaction", ("paracetamol", "warfarin"))
    # ... and a which-drug question carries warfarin into the safety facets
    which = understand_offline("Bị đau răng thì uống thuốc gì?", resolver, history, said)
    assert which.turn_type == "symptom_to_drug" and which.patient_context.current_medications == ("warfarin",)
    # asked something of its own, the section question is about paracetamol alone
    own = understand_offline("Liều paracetamol cho người lớn?", resolver, history, said)
    assert own.drugs == ("paracetamol",) and own.attribute == "lieu_luong_va_cach_dung"
    # organ function and age are the patient's too; a complaint told without a question asks for it
    described = understand_offline("Bệnh nhân nam 70 tuổi, suy thận, đang dùng warfarin.", resolver)
    assert described.needs_clarify and described.patient_context.renal_function
    complaint = understand_offline("Tôi đang dùng warfarin, bị đau đầu", resolver)
    assert (complaint.turn_type, complaint.drugs, complaint.indication) == ("symptom_to_drug", (), "đau đầu")
    assert complaint.patient_context.current_medications == ("warfarin",)
