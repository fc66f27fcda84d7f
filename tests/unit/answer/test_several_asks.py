"""Several asks answered in one reply: each part under the question it answers, in order; the book
named once; a section quoted once (the reply budget is tests/unit/answer/test_reply_budget.py)."""

from __future__ import annotations

from duocthu.answer.blocks import notice, sample_notice
from duocthu.answer.replies.context import Composed, Composer
from duocthu.answer.replies.several_asks import several_asks
from duocthu.answer.wording import ReplyWording
from duocthu.models.evidence import CandidateAssessment, EvidenceBundle, GatheredEvidence, RankedDrug
from duocthu.models.frame import QueryFrame
from duocthu.models.plan import Ask, Plan
from duocthu.models.reading import TurnReading
from duocthu.models.reply import AnswerLinesBlock, Block, Citation, QuotedLine, Reply, SectionBlock

DOSE, BARRED = "lieu_luong_va_cach_dung", "chong_chi_dinh"


def section(drug: str, key: str, text: str) -> SectionBlock:
    cite = Citation(drug_id=drug, section_key=key, heading=key, page_start=1, page_end=1)
    return SectionBlock(drug_id=drug, display_name=drug.title(), citation=cite, lines=("", text))


def answering(drug: str, key: str) -> AnswerLinesBlock:
    quote = QuotedLine(text="Người lớn: 500 mg.", drug_id=drug, section_key=key, citation="tr. 1")
    lines = ("- “Người lớn: 500 mg.”", "Toàn văn mục được trích dưới đây.")
    return AnswerLinesBlock(drug_id=drug, section_key=key, quotes=(quote,), lines=lines)


def part(clause: str, key: str) -> Plan:
    frame = QueryFrame.model_validate({"turn_type": "drug_attribute", "drugs": ["thuoc"], "attribute": key})
    ask = Ask(kind="section", drugs=("thuoc",), section_key=key)
    return Plan(reply="sections", frame=frame, reading=TurnReading(text=clause), asks=(ask,), clause=clause)


def turn(*parts: Plan) -> Plan:
    asks = tuple(a for p in parts for a in p.asks)
    return Plan(
        reply="several_asks", frame=parts[-1].frame, reading=parts[-1].reading, asks=asks, parts=parts
    )


def composer() -> Composer:
    return Composer(ReplyWording({"thuoc": "Thuốc"}, {}), generator=None, sample_data=True)  # type: ignore[arg-type]


def replies(by_clause: dict[str, list[Block]]):  # type: ignore[no-untyped-def]
    def compose_one(_: Composer, plan: Plan, evidence: GatheredEvidence | None) -> Composed:
        blocks = [
            *by_clause[plan.clause or ""],
            notice("source", "Nguồn: Dược thư.", spaced=True),
            sample_notice(),
        ]
        return Composed(
            Reply(blocks=tuple(blocks)), EvidenceBundle(decision="ABSTAIN", reason="section_absent")
        )

    return compose_one


def test_each_part_under_its_question_in_order_with_the_book_named_once() -> None:
    plan = turn(part("Liều bao nhiêu?", DOSE), part("CCĐ là gì?", BARRED))
    answer = {
        "Liều bao nhiêu?": [section("thuoc", DOSE, "500 mg")],
        "CCĐ là gì?": [section("thuoc", BARRED, "Mẫn cảm")],
    }
    text = several_asks(composer(), plan, GatheredEvidence(), replies(answer)).reply.text
    first, second = "Câu hỏi 1 (Thuốc — Liều lượng và cách dùng)", "Câu hỏi 2 (Thuốc — Chống chỉ định)"
    assert text.index(first) < text.index("500 mg") < text.index(second)
    assert "Liều bao nhiêu?" not in text  # each question named in the reply's own words, never echoed
    assert text.index("Mẫn cảm") < text.index("Nguồn:")
    assert text.count("Nguồn:") == 1 and text.count("DỮ LIỆU MẪU") == 1


def test_a_section_two_parts_need_is_quoted_once() -> None:
    plan = turn(part("Liều người lớn?", DOSE), part("Liều trẻ em thế nào?", BARRED))
    answer = {
        "Liều người lớn?": [section("thuoc", DOSE, "500 mg")],
        "Liều trẻ em thế nào?": [section("thuoc", DOSE, "500 mg")],
    }
    text = several_asks(composer(), plan, GatheredEvidence(), replies(answer)).reply.text
    assert text.count("500 mg") == 1 and "đã trích ở trên" in text


def test_the_turns_evidence_ranks_the_drugs_a_later_part_lists() -> None:
    # "X được không hay dùng gì?": X's part first, the list second; the turn's bundle holds the list
    listed = (
        RankedDrug(drug_id="a", display_name="A", score=1.0),
        RankedDrug(drug_id="b", display_name="B", score=0.5),
    )
    bundles = {
        "X được không": EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score"),
        "hay dùng gì?": EvidenceBundle(
            decision="ABSTAIN", reason="insufficient_retrieval_score", ranked_drugs=listed
        ),
    }

    def compose_one(_: Composer, plan: Plan, evidence: GatheredEvidence | None) -> Composed:
        return Composed(
            Reply(blocks=(section("thuoc", DOSE, plan.clause or ""),)), bundles[plan.clause or ""]
        )

    plan = turn(part("X được không", DOSE), part("hay dùng gì?", BARRED))
    composed = several_asks(composer(), plan, GatheredEvidence(), compose_one)
    assert [d.drug_id for d in composed.bundle.ranked_drugs] == ["a", "b"]


def test_a_drug_asked_for_the_patient_that_the_later_list_checks_is_answered_by_the_list() -> None:
    # "X được không hay dùng gì?" with X among the drugs listed: the list's row states X's status
    checked = EvidenceBundle(
        decision="ABSTAIN",
        reason="insufficient_retrieval_score",
        candidate_statuses=(CandidateAssessment(drug_id="thuoc", status="CAUTION"),),
    )
    bundles = {"X được không": EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score")}
    bundles["hay dùng gì?"] = checked

    def compose_one(_: Composer, plan: Plan, evidence: GatheredEvidence | None) -> Composed:
        return Composed(
            Reply(blocks=(section("thuoc", DOSE, plan.clause or ""),)), bundles[plan.clause or ""]
        )

    plan = turn(part("X được không", BARRED), part("hay dùng gì?", DOSE))
    composed = several_asks(composer(), plan, GatheredEvidence(), compose_one)
    assert composed.bundle is checked and "X được không" not in composed.reply.text
