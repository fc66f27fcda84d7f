"""Long case descriptions: the medicines a patient takes, listed, then the question (`facts`
list reading, `rules.names._asked_of_the_case`, `cue_readings.condition_asked`); through the
offline pipeline."""

from __future__ import annotations

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.frame import QueryFrame
from duocthu.retrieval.levels import patient_band
from duocthu.tools.evals.understanding import score_gold
from duocthu.understanding.facts import extract_facts
from duocthu.understanding.pipeline import understand_offline


def _frame(resolver: CatalogDrugResolver, message: str) -> QueryFrame:
    return understand_offline(message, resolver)


@pytest.mark.parametrize(
    ("message", "taken"),
    [
        # commas, "và", "với", "thêm … nữa", a dose or a schedule between two medicines
        (
            "Bà 75 tuổi đang uống losartan, furosemid, digoxin và warfarin. "
            "Bà bị đau đầu, nên uống thuốc gì?",
            ("losartan", "furosemid", "digoxin", "warfarin"),
        ),
        (
            "Ông đang dùng digoxin 0,125 mg với furosemid 40 mg mỗi sáng, thêm spironolacton nữa. "
            "Ông bị sốt thì uống thuốc gì?",
            ("digoxin", "furosemid", "spironolacton"),
        ),
        # a clause of the same sentence opening with a joiner goes on the list
        (
            "Anh đang uống clopidogrel sau đặt stent, thêm atorvastatin. Anh bị đau răng, dùng thuốc gì?",
            ("clopidogrel", "atorvastatin"),
        ),
    ],
)
def test_a_list_of_medicines_taken_is_current_medicines_and_the_question_is_which_drug(
    resolver: CatalogDrugResolver, message: str, taken: tuple[str, ...]
) -> None:
    frame = _frame(resolver, message)
    assert frame.patient_context.current_medications == taken
    assert frame.drugs == () and frame.turn_type == "symptom_to_drug"


@pytest.mark.parametrize(
    ("message", "taken"),
    [
        # a reason for each medicine between them, closed by "và" or a comma
        (
            "Bố 74 tuổi đang uống warfarin vì rung nhĩ và losartan vì tăng huyết áp, đau khớp gối. "
            "Nên dùng thuốc giảm đau gì?",
            ("warfarin", "losartan"),
        ),
        (
            "Tôi uống warfarin vì rung nhĩ, losartan vì huyết áp cao. Đau đầu dùng thuốc gì?",
            ("warfarin", "losartan"),
        ),
        # taking again after the joiner
        (
            "Ông bị tăng huyết áp, đang uống digoxin và hay uống ibuprofen khi đau gối. "
            "Nên dùng thuốc hạ áp nào?",
            ("digoxin", "ibuprofen"),
        ),
    ],
)
def test_a_reason_or_a_verb_of_taking_inside_the_list_does_not_end_it(
    resolver: CatalogDrugResolver, message: str, taken: tuple[str, ...]
) -> None:
    frame = _frame(resolver, message)
    assert frame.patient_context.current_medications == taken and frame.drugs == ()


def test_a_verb_of_taking_after_a_comma_is_the_question(resolver: CatalogDrugResolver) -> None:
    frame = _frame(resolver, "Tôi đang dùng warfarin, uống ibuprofen được không?")
    assert frame.patient_context.current_medications == ("warfarin",)
    assert "ibuprofen" in frame.drugs


def test_the_list_ends_with_its_sentence(resolver: CatalogDrugResolver) -> None:
    # "muốn thêm metformin" in the next sentence is the drug asked about, not one taken
    frame = _frame(
        resolver,
        "Bà đang dùng gliclazid và enalapril. Bác sĩ muốn thêm metformin, bà có dùng được metformin không?",
    )
    assert frame.patient_context.current_medications == ("gliclazid", "enalapril")
    assert frame.drugs == ("metformin",) and frame.turn_type == "drug_attribute"


def test_a_drug_asked_beside_a_list_is_the_question_and_beside_one_medicine_the_pair(
    resolver: CatalogDrugResolver,
) -> None:
    listed = _frame(resolver, "Cụ đang uống warfarin, digoxin và amlodipin, có uống được ibuprofen không?")
    assert (listed.turn_type, listed.drugs) == ("drug_attribute", ("ibuprofen",))
    assert listed.patient_context.current_medications == ("warfarin", "digoxin", "amlodipin")
    pair = _frame(resolver, "Tôi đang dùng warfarin, uống thêm ibuprofen được không?")
    assert pair.turn_type == "interaction" and set(pair.drugs) == {"warfarin", "ibuprofen"}


@pytest.mark.parametrize(
    "message",
    [
        "Chị đang uống fluoxetin và omeprazol, bị đau bụng kinh. "
        "Có dùng được ibuprofen không, hay nên dùng thuốc gì?",
        "Bé bị tiêu chảy cấp, có nên cho bé uống loperamid không hay dùng thuốc nào khác?",
        "Ông bị suy tim, đang dùng furosemid. Nên thêm thuốc nào, có dùng được spironolacton không?",
    ],
)
def test_a_which_drug_clause_decides_a_turn_that_also_names_a_candidate(
    resolver: CatalogDrugResolver, message: str
) -> None:
    frame = _frame(resolver, message)
    assert frame.drugs == () and frame.turn_type in ("symptom_to_drug", "condition_to_drug")


def test_the_listed_drugs_asked_about_together_stay_an_interaction(resolver: CatalogDrugResolver) -> None:
    frame = _frame(
        resolver,
        "Ông 70 tuổi bị đau đầu, đang uống warfarin, digoxin và amiodaron. "
        "Ba thuốc này dùng chung có sao không?",
    )
    assert frame.turn_type == "interaction" and set(frame.drugs) == {"warfarin", "digoxin", "amiodaron"}


def test_a_denied_complaint_is_neither_asked_about_nor_the_patients(resolver: CatalogDrugResolver) -> None:
    frame = _frame(resolver, "Bé 3 tuổi đi ngoài nhiều lần, không sốt, bị tiêu chảy thì uống thuốc gì?")
    assert frame.condition is not None and frame.condition.normalized == "tiêu chảy"
    assert "sốt" not in frame.patient_context.comorbidities
    assert extract_facts("không bị sốt, vẫn ho").denied and not extract_facts("bị sốt").denied


def test_a_reaction_to_a_drug_named_after_its_class_is_the_patients_history(
    resolver: CatalogDrugResolver,
) -> None:
    frame = _frame(
        resolver,
        "Trước đây mẹ bị ho khan khi dùng thuốc huyết áp (hình như là enalapril). Mẹ bị tăng huyết áp, "
        "nên dùng thuốc nào?",
    )
    assert frame.drugs == () and frame.turn_type == "condition_to_drug"
    assert any("enalapril" in r for r in frame.patient_context.adverse_reactions)


@pytest.mark.parametrize(
    ("message", "renal"),
    [
        ("Ông 80 tuổi, eGFR khoảng 35, đang dùng furosemid.", "egfr 35"),
        # whatever few words stand between the clearance and its number
        ("Cụ 81t, đang Glucophage 850 x2, eGFR lần này 38. Giữ nguyên liều?", "egfr 38"),
        ("BN ClCr hiện tại khoảng 25 ml/ph, dùng colchicin được không", "clcr 25"),
        ("eGFR đo được 42, metformin liều tối đa?", "egfr 42"),  # "đo" is no level word "độ"
    ],
)
def test_a_clearance_is_the_first_number_a_few_words_after_its_name(message: str, renal: str) -> None:
    told = extract_facts(message).renal_function
    value = float(renal.split()[-1])
    assert told == renal and patient_band(told, "renal") == (value, value + 1)


def test_a_number_another_unit_measures_is_no_clearance() -> None:
    assert extract_facts("BN suy thận 3 năm nay, dùng metformin được không").renal_function == "suy thận"
    assert extract_facts("suy thận, bé 12 kg, dùng gì").renal_function == "suy thận"


@pytest.mark.parametrize(
    ("message", "condition"),
    [
        # the question form names again one told before ("hạ áp": tăng huyết áp), not the last one
        ("Ông bị tăng huyết áp và suy tim, đang dùng furosemid. Nên thêm thuốc hạ áp nào?", "tăng huyết áp"),
        # a purpose right after the question form names it
        ("Bà bị gút mạn và suy tim, nên dùng thuốc nào để điều trị suy tim?", "suy tim"),
        # "thuốc giảm đau nào" names no condition told before: the complaint stays
        ("Ông đau răng nhiều, nên dùng thuốc giảm đau nào?", "đau răng"),
    ],
)
def test_the_condition_asked_is_the_one_the_question_names(
    resolver: CatalogDrugResolver, message: str, condition: str
) -> None:
    frame = _frame(resolver, message)
    assert frame.condition is not None and frame.condition.normalized == condition


def test_the_eval_scores_a_cases_fields(resolver: CatalogDrugResolver) -> None:
    row = {
        "id": "t",
        "message": (
            "Ông đang uống warfarin và digoxin, ClCr 28. Trước đây dùng captopril bị phù mạch. "
            "Ông bị sốt, uống thuốc gì?"
        ),
        "expect": {
            "condition": "sốt",
            "current_medications": ["Warfarin", "digoxin"],
            "reaction_drugs": ["captopril"],
            "renal_function": "28",
        },
    }
    report = score_gold([row], lambda message, history, prior: _frame(resolver, message))
    assert report.correct == 1
    wrong = {**row, "expect": {"current_medications": ["warfarin"], "renal_function": None}}
    report = score_gold([wrong], lambda message, history, prior: _frame(resolver, message))
    assert report.by_field["current_medications"] == [0, 1] and report.by_field["renal_function"] == [0, 1]
