"""Several asks in one message: the ask clauses, each understood with the clauses before it as its
conversation, one plan part per distinct ask; a message of one ask is planned as it always was."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.core.text import words
from duocthu.models.evidence import AskEvidence, EvidenceBundle, GatheredEvidence, WholeSection
from duocthu.models.frame import QueryFrame
from duocthu.models.plan import Plan, gathered_by_part, part_evidence
from duocthu.understanding.clauses import ask_clauses, asked_or_instead
from duocthu.understanding.pipeline import understand_offline, understand_read
from duocthu.understanding.plan import plan_turn
from duocthu.understanding.reading import turn_reading
from duocthu.understanding.rules.provider import OfflineFrameProvider
from duocthu.understanding.several_asks import plan_message
from duocthu.understanding.tags import MessageReader, tag_message


@pytest.mark.parametrize(
    ("message", "clauses"),
    [
        # two questions, each closed by its own question word
        ("CCĐ của ibuprofen là gì? có dùng cho PNCT được không?", 2),
        ("Warfarin liều bao nhiêu, và có tương tác với aspirin không?", 2),
        ("Liều amlodipin bao nhiêu; bà bầu dùng được ko?", 2),
        # a question mark alone does not make a condition of the question a question of its own
        ("Paracetamol có dùng được không, nếu bé 2 tuổi?", 1),
        # the patient told first opens the question; drugs joined by "và" are one question
        ("BN 70 tuổi, suy thận. Amlodipin liều bao nhiêu?", 1),
        ("Amoxicilin và ibuprofen có dùng cùng được không?", 1),
        # "hay" (or) offers another answer to the same question
        ("Dùng omeprazol được không, hay thuốc nào khác tốt hơn?", 1),
        # a word typed with marks is no question word of another spelling ("nhiều" is no "nhiêu")
        ("Bé sốt nhiều, có dùng paracetamol được không?", 1),
        # a closing remark stays with the question
        ("Liều metformin bao nhiêu? cảm ơn bác sĩ", 1),
        # a question of what inside a clause closes it when the next clause, opened as one, asks what too
        ("Paracetamol tối đa mấy g/ngày, và trẻ bao nhiêu tháng thì dùng được", 2),
        ("Paracetamol mỗi lần mấy viên, ngày mấy lần?", 1),  # one question of its dose in two parts
        # questions counted off
        ("Hỏi 2 ý: (1) liều amlodipin bao nhiêu (2) có dùng chung simvastatin được không", 2),
        ("1) Losartan liều khởi đầu bao nhiêu 2) PNCT dùng được không", 2),
        # a which-question opening the clause after a comma, after a question of what, is its own
        ("Thuốc nào cắt cơn gút cấp, thuốc nào để hạ acid uric lâu dài?", 2),
        ("Thuốc nào gây ho khan, cần theo dõi gì?", 1),  # no which-word opens the second clause
        ("Trong mấy thuốc THA, thuốc nào hay gây ho khan?", 1),  # the clause before asks no which
        ("Cái nào làm tăng INR, cái nào làm giảm?", 1),  # what it asks of is the question before's
    ],
)
def test_a_message_is_cut_where_one_question_closes_and_another_asks(message: str, clauses: int) -> None:
    found = ask_clauses(message)
    assert len(found) == clauses
    assert words(" ".join(found)) == words(message)  # every word kept, in order


def _understand(resolver: CatalogDrugResolver):  # type: ignore[no-untyped-def]
    def understand(
        text: str, history: Sequence[str], prior: QueryFrame | None, reader: MessageReader
    ) -> QueryFrame:
        return understand_read(text, reader, OfflineFrameProvider(), Deadline.after(5), history, prior)

    return understand


def test_a_message_of_one_ask_is_planned_as_it_always_was(resolver: CatalogDrugResolver) -> None:
    message = "Chống chỉ định của ibuprofen là gì?"
    frame = understand_offline(message, resolver)
    assert plan_message(message, (), None, _understand(resolver), resolver) == plan_turn(
        frame, turn_reading(tag_message(message, resolver), frame, resolver), resolver
    )


def test_each_ask_clause_is_a_part_that_keeps_the_drug_of_the_clause_before(
    resolver: CatalogDrugResolver,
) -> None:
    message = "Chống chỉ định của ibuprofen là gì? có dùng cho phụ nữ có thai được không?"
    plan = plan_message(message, (), None, _understand(resolver), resolver)
    assert plan.reply == "several_asks" and len(plan.parts) == 2
    first, second = plan.parts
    assert first.frame.drugs[0] == second.frame.drugs[0] == "ibuprofen"
    assert first.frame.attribute != second.frame.attribute
    assert plan.asks == (*first.asks, *second.asks)
    assert [p.clause for p in plan.parts] == list(ask_clauses(message))


def test_the_same_ask_in_a_later_clause_reads_the_patient_it_tells(resolver: CatalogDrugResolver) -> None:
    message = (
        "BN 65t THA uống Amlor 5 bị phù 2 mắt cá. Nên làm gì, giảm liều hay đổi thuốc? "
        "Thêm nữa suy thận nhẹ có phải chỉnh liều amlodipin ko"
    )
    plan = plan_message(message, (), None, _understand(resolver), resolver)
    dose = next(p for p in plan.parts if p.frame.attribute == "lieu_luong_va_cach_dung")
    assert dose.frame.patient_context.renal_function is not None  # "suy thận nhẹ", told in the later clause
    assert "suy thận nhẹ" in (dose.asks[0].query or "") and "giảm liều" in (dose.asks[0].query or "")


def test_a_clause_naming_only_a_medicine_taken_asks_about_the_earlier_drug_beside_it(
    resolver: CatalogDrugResolver,
) -> None:
    message = "Ciprofloxacin liều bao nhiêu? Đang dùng prednisolon thì cần lưu ý gì?"
    plan = plan_message(message, (), None, _understand(resolver), resolver)
    assert [p.frame.drugs[0] for p in plan.parts] == ["ciprofloxacin", "ciprofloxacin"]


def test_a_clause_asking_nothing_of_its_own_of_a_medicine_taken_asks_the_pair(
    resolver: CatalogDrugResolver,
) -> None:
    message = "BN đang warfarin vì rung nhĩ. Fluconazol liều nạp thế nào? warfarin thì phải làm gì"
    plan = plan_message(message, (), None, _understand(resolver), resolver)
    assert [(a.kind, a.drugs) for a in plan.parts[-1].asks] == [("together", ("warfarin", "fluconazol"))]


def test_a_clause_naming_a_drug_outside_the_catalogue_asks_it_beside_the_drug_asked_before(
    resolver: CatalogDrugResolver,
) -> None:
    # a drug with no monograph is the later question's subject as a catalogue name would be
    message = "Cai rượu dùng diazepam uống liều nào? BN còn đang dùng morphin sau mổ, phối hợp có sao không"
    plan = plan_message(message, (), None, _understand(resolver), resolver)
    kinds = [a.kind for p in plan.parts for a in p.asks if a.kind != "whole_sections"]
    assert kinds == ["section", "together"]
    assert plan.parts[0].asks[0].section_key == "lieu_luong_va_cach_dung"


def test_a_clause_going_on_with_the_one_before_leaves_the_next_clause_its_drug(
    resolver: CatalogDrugResolver,
) -> None:
    # "tối đa/ngày?" read alone names no drug; the clause after it still goes on from loperamid
    message = "Loperamid người lớn: liều đầu bao nhiêu, tối đa/ngày? và uống chung itraconazol thì sao"
    plan = plan_message(message, (), None, _understand(resolver), resolver)
    asks = [a for p in plan.parts for a in p.asks if a.kind != "whole_sections"]
    assert [a.kind for a in asks] == ["section", "together"]
    assert asks[1].drugs == ("loperamid",) and asks[1].unknown_names == ("itraconazol",)


def test_a_clause_asking_what_keeps_its_part_without_a_section(resolver: CatalogDrugResolver) -> None:
    # its own question, answered from the drug's monograph, never folded into the section asked next
    message = "Loperamid tối đa mấy mg mỗi ngày, và trẻ dưới mấy tuổi thì chống chỉ định"
    plan = plan_message(message, (), None, _understand(resolver), resolver)
    assert [p.frame.drugs[0] for p in plan.parts] == ["loperamid", "loperamid"]
    assert plan.parts[1].asks[0].section_key == "chong_chi_dinh"
    assert plan.parts[0].asks[0].section_key != "chong_chi_dinh"


def test_a_choice_between_drugs_is_a_question_of_its_own(resolver: CatalogDrugResolver) -> None:
    message = "Bệnh nhân rung nhĩ: nên dùng warfarin hay thuốc khác? liều khởi đầu bao nhiêu"
    plan = plan_message(message, (), None, _understand(resolver), resolver)
    assert len(plan.parts) == 2 and plan.parts[1].asks[0].section_key == "lieu_luong_va_cach_dung"


def test_two_clauses_asking_the_same_are_one_ask(resolver: CatalogDrugResolver) -> None:
    message = "Liều paracetamol cho người lớn bao nhiêu? Liều paracetamol người lớn là gì?"
    assert not plan_message(message, (), None, _understand(resolver), resolver).parts


def test_two_clauses_asking_which_drugs_for_two_findings_are_two_lists(resolver: CatalogDrugResolver) -> None:
    message = "Dược thư có thuốc nào cắt cơn gút cấp, thuốc nào để hạ acid uric lâu dài?"
    plan = plan_message(message, (), None, _understand(resolver), resolver)
    assert [p.asks[0].query for p in plan.parts] == ["cơn gút cấp", "tăng acid uric máu"]


def test_which_drugs_for_one_described_patient_are_one_decision(resolver: CatalogDrugResolver) -> None:
    # the drugs for a patient the message describes are checked in one table, whatever the findings
    message = "Bé 9 tuổi, hen phế quản, viêm xoang cấp. Nên dùng kháng sinh gì, và hạ sốt thì dùng gì?"
    assert not plan_message(message, (), None, _understand(resolver), resolver).parts


def test_evidence_is_gathered_part_by_part_and_read_back_per_part(resolver: CatalogDrugResolver) -> None:
    message = "Chống chỉ định của ibuprofen là gì? có dùng cho phụ nữ có thai được không?"
    plan = plan_message(message, (), None, _understand(resolver), resolver)
    seen: list[Plan] = []

    def gather(part: Plan) -> GatheredEvidence:
        seen.append(part)
        bundle = EvidenceBundle(decision="ABSTAIN", reason="section_absent")
        answers = tuple(AskEvidence(ask=i, bundle=bundle) for i in range(len(part.asks)))
        return GatheredEvidence(answers=answers, sections=(WholeSection(drug_id="x", section_key="y"),))

    evidence = gathered_by_part(plan, gather)
    assert seen == list(plan.parts)
    assert [a.ask for a in evidence.answers] == list(range(len(plan.asks)))
    assert len(evidence.sections) == 1  # a section two parts read is kept once
    for index, part in enumerate(plan.parts):
        own = part_evidence(plan, evidence, index)
        assert own is not None and [a.ask for a in own.answers] == list(range(len(part.asks)))


def test_interactions_asked_beside_a_medicine_taken_read_the_pair(resolver: CatalogDrugResolver) -> None:
    # the second ask names the class of the first ask's drug beside the one the patient takes
    message = (
        "Mobic cho cụ suy thận nặng chưa lọc máu có CCĐ không? Cụ còn đang spironolacton, "
        "phối hợp NSAID có rủi ro gì?"
    )
    plan = plan_message(message, (), None, _understand(resolver), resolver)
    together = [ask for part in plan.parts for ask in part.asks if ask.kind == "together"]
    assert together and set(together[0].drugs) == {"meloxicam", "spironolacton"}


@pytest.mark.parametrize(
    ("message", "parts"),
    [
        # a question mark closing words that name a drug of their own: a question of its own
        ("Cipro uống cho BN ClCr 45: liều? Đồng thời đang warfarin, INR có bị ảnh hưởng?", 2),
        ("Fluconazol liều cao: nguy cơ cho thai? BN đang dùng warfarin vì van tim, có tương tác?", 2),
        # a section named after words that asked none: one question, in other words
        ("Dung dịch tiêm furosemid bị ngả vàng còn dùng được ko, có cần tránh ánh sáng?", 0),
    ],
)
def test_a_question_mark_after_a_name_of_its_own_asks(
    resolver: CatalogDrugResolver, message: str, parts: int
) -> None:
    assert len(plan_message(message, (), None, _understand(resolver), resolver).parts) == parts


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        # the last question of a message may go unmarked: it names a drug of its own
        ("Bà bầu 35 tuần xin Voltaren được không? còn Panadol thì tối đa mấy viên 1 ngày", "paracetamol"),
        # after a decision that names no section, a drug told as taken is asked again, of its dose
        (
            "Đang dùng methotrexat, uống thêm ibuprofen được k? Mà methotrexat uống mấy lần một tuần",
            "methotrexat",
        ),
    ],
)
def test_a_later_question_of_its_own_is_asked_of_its_own_drug(
    resolver: CatalogDrugResolver, message: str, asked: str
) -> None:
    plan = plan_message(message, (), None, _understand(resolver), resolver)
    assert len(plan.parts) == 2 and plan.parts[1].asks[0].drugs == (asked,)
    assert plan.parts[1].asks[0].section_key == "lieu_luong_va_cach_dung"


def test_a_clause_opened_as_one_asking_of_a_drug_of_its_own_is_an_ask(resolver: CatalogDrugResolver) -> None:
    # after a question of what ("thế nào") that does not end the clause before it
    message = "Colchicin chỉnh liều thế nào với ClCr này, và có bắt đầu allopurinol luôn không?"
    plan = plan_message(message, (), None, _understand(resolver), resolver)
    assert [p.frame.drugs[:1] for p in plan.parts] == [("colchicin",), ("allopurinol",)]


@pytest.mark.parametrize(
    "message",
    [
        "Đang Plavix 75, đau thượng vị. Cho Losec 20 kèm được không? nếu ko nên thì thay bằng gì",
        "Thai 32 tuần, đau lưng, tự mua Brufen uống 2 hôm. Dùng tiếp được k, nếu k thì giảm đau bằng gì?",
        # one clause: the alternative opened by "hay" after the closed question
        "Ông 78t suy thận ClCr 25, sưng đau khớp ngón chân cái. Colchicin được không hay phải dùng gì?",
    ],
)
def test_a_drug_asked_then_what_instead_is_two_asks(resolver: CatalogDrugResolver, message: str) -> None:
    # the named drug for this patient first, then the list for the complaint (never the list alone)
    plan = plan_message(message, (), None, _understand(resolver), resolver)
    assert plan.reply == "several_asks" and [p.reply for p in plan.parts][1] == "drug_list"
    assert plan.parts[0].frame.drugs and plan.parts[0].reply != "drug_list"


def test_an_alternative_asked_after_a_closed_question_is_split_from_it() -> None:
    asked = "Colchicin được không hay phải dùng gì?"
    assert asked_or_instead(asked) == ("Colchicin được không", "hay phải dùng gì?")
    # a choice between answers closes no question before its "hay"
    assert asked_or_instead("Dùng amoxicilin hay cefuroxim?") is None
    assert asked_or_instead("Liều bao nhiêu hay tính theo kg?") is None
