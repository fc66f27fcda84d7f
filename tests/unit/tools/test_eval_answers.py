"""`duocthu eval answers`: how a chat turn is judged against a gold row (ids and statuses only)."""

from __future__ import annotations

from duocthu.answer.lines import AnswerLines
from duocthu.api.chat_turn import ChatTurn
from duocthu.models.evidence import CandidateAssessment, EvidenceBundle, FacetAssessment, RankedDrug
from duocthu.tools.evals.answers import Row, facet_status, figures, judge


def ranked(*drugs: str) -> tuple[RankedDrug, ...]:
    return tuple(RankedDrug(drug_id=d, display_name=d, score=1.0) for d in drugs)


def test_the_four_statuses_and_never_safe() -> None:
    assert facet_status(FacetAssessment(facet="warnings", status="CONTRAINDICATED")) == "contraindicated"
    assert facet_status(FacetAssessment(facet="warnings", status="CAUTION")) == "caution"
    assert facet_status(FacetAssessment(facet="pregnancy", status="INSUFFICIENT_EVIDENCE")) == "says_nothing"
    absent = FacetAssessment(facet="pregnancy", status="INSUFFICIENT_EVIDENCE", section_absent=True)
    assert facet_status(absent) == "absent"


def test_a_listed_drug_left_unchecked_counts_as_unchecked_and_wrong() -> None:
    row = Row("ap99", "dev", "patient", "q", {"listed": ["a", "b"], "never_listed": ["c"],
              "facets": {"a": {"warnings": "caution"}, "b": {"warnings": "says_nothing"}}})  # fmt: skip
    checked = CandidateAssessment(
        drug_id="a", status="CAUTION", facets=(FacetAssessment(facet="warnings", status="CAUTION"),)
    )
    bundle = EvidenceBundle(
        decision="ABSTAIN", reason="insufficient_retrieval_score", ranked_drugs=ranked("a", "b", "c"),
        candidate_statuses=(checked,),
    )  # fmt: skip
    out = judge(row, ChatTurn("s", "x" * 3100, bundle))
    assert out.unchecked == ["b", "c"] and out.never_listed_present == ["c"] and out.missed
    assert out.facets == [
        ("a", "warnings", "caution", "caution"),
        ("b", "warnings", "says_nothing", "unchecked"),
    ]
    assert figures([out])["per-facet status accuracy"] == "0.500 (1/2)"
    assert figures([out])["patient replies <= 3,000 chars"] == "0.000 (0/1)"


def test_a_section_question_is_judged_on_its_answer_lines() -> None:
    empty = EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score")
    said = AnswerLines(drug_id="d", section_key="lieu_luong_va_cach_dung", focus=("suy gan",), not_said=True,
                       other_section_key="than_trong")  # fmt: skip
    row = Row("an99", "dev", "not_said", "q", {"not_said": True, "other_section": "than_trong"})
    assert not judge(row, ChatTurn("s", "x", empty, answer_lines=said)).missed
    assert judge(row, ChatTurn("s", "x", empty)).missed


def test_a_facet_that_states_no_change_is_its_own_status() -> None:
    stated = FacetAssessment(
        facet="dosage", status="NO_CHANGE_STATED", quotes=("Suy thận: không cần chỉnh liều.",)
    )
    assert facet_status(stated) == "states_no_change"
