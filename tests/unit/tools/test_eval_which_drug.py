"""`duocthu eval which-drug`: how a chat turn is judged against a gold row (ids only)."""

from __future__ import annotations

from duocthu.api.chat_turn import ChatTurn
from duocthu.models.evidence import EvidenceBundle, RankedDrug
from duocthu.tools.evals.which_drug import Row, figures, judge, misses


def drugs(*ids: str) -> tuple[RankedDrug, ...]:
    return tuple(RankedDrug(drug_id=d, display_name=d, score=1.0) for d in ids)


ROW = Row(
    id="wd-99", split="dev", question="q", direct=("a", "b"), indirect=("c",), never=frozenset({"n"}),
    either=frozenset({"e"}), quote={"a": "câu của a", "b": "câu của b", "c": "câu của c"},
)  # fmt: skip


def turn(
    answer: str, shown: tuple[str, ...], beyond: tuple[str, ...] = (), apart: tuple[str, ...] = ()
) -> ChatTurn:
    bundle = EvidenceBundle(
        decision="ABSTAIN", reason="insufficient_retrieval_score", ranked_drugs=drugs(*shown),
        unlisted_drugs=drugs(*beyond), incidental_drugs=drugs(*apart),
    )  # fmt: skip
    return ChatTurn("s", answer, bundle)


def test_an_indirect_drug_before_a_direct_one_is_a_wrong_pair_and_a_wrong_head() -> None:
    # Given c (indirect) shown before b (direct), b named beyond the cap, "e" judged either way
    out = judge(ROW, turn("câu của a … câu của c", ("a", "e", "c"), beyond=("b",), apart=("n",)))
    # Then one of the two pairs is in order, the head (e aside) holds a and c, b's line is not judged
    assert out.pairs() == (1, 2) and out.head() == (1, 2)
    assert out.quoted() == (2, 2) and out.found() == ["a", "b", "c"]
    # and a never-listed drug listed apart, as no drug for the condition, is not counted
    assert out.listed_never() == []
    assert figures([out])["direct before indirect (pairs)"] == "0.500 (1/2)"
    assert misses([out]) == "wd-99: order ['a', 'e', 'c', 'b', 'n']"


def test_a_never_listed_drug_among_those_naming_it_and_a_long_reply_are_misses() -> None:
    out = judge(ROW, turn("x" * 3001, ("a", "b", "n", "c")))
    assert out.pairs() == (2, 2) and out.listed_never() == ["n"] and out.quoted() == (0, 3)
    assert figures([out])["replies <= 3,000 chars"] == "0.000 (0/1)"
    assert misses([out]) == (
        "wd-99: line not quoted ['a', 'b', 'c']; never-listed listed ['n']; reply 3,001 chars"
    )
