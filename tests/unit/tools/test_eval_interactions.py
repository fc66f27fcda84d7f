"""`duocthu eval interactions`: how a chat turn is judged against a gold row (ids only)."""

from __future__ import annotations

from duocthu.api.chat_turn import ChatTurn
from duocthu.models.evidence import EvidenceBundle
from duocthu.tools.evals.interactions import Quote, Row, figures, judge, misses

TITLES = {"a": "Alfa", "b": "Beta", "c": "Gamma"}
ROW = Row(
    id="in-99", split="dev", question="q", drugs=("a", "b", "c"), absent=("zeta",),
    quotes=(Quote(("a", "b"), "a", "câu của a về b"), Quote(("a", "b"), "b", "câu của b về a")),
    silent=(("a", "c"), ("b", "c")),
)  # fmt: skip


def turn(answer: str) -> ChatTurn:
    return ChatTurn("s", answer, EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score"))


def test_a_silent_pair_said_as_not_named_with_the_disclaimer_is_right() -> None:
    answer = "\n".join([
        "Không tìm thấy “zeta” trong Dược thư.",
        "- Alfa: “câu của a về b” - Beta: “câu của b về a”",
        "- Alfa – Gamma: mục của Alfa và của Gamma không nêu nhau; không có nghĩa là không có tương tác.",
        "- Beta – Gamma: mục của Beta và của Gamma không nêu nhau; KHÔNG có nghĩa là an toàn.",
    ])  # fmt: skip
    out = judge(ROW, turn(answer), TITLES)
    assert (out.unquoted(), out.silent_unsaid(), out.silent_as_safe(), out.absent_unsaid()) == (
        [],
        [],
        [],
        [],
    )
    assert figures([out])["silent pairs said as not named"] == "1.000 (2/2)"
    assert misses([out]) == "no dev misses"


def test_a_silent_pair_worded_as_safe_an_unsaid_one_and_a_missing_quote_are_misses() -> None:
    answer = "câu của a về b\nAlfa và Gamma không nêu nhau, dùng chung an toàn.\n" + "x" * 3000
    out = judge(ROW, turn(answer), TITLES)
    assert out.silent_as_safe() == [("a", "c")] and out.silent_unsaid() == [("b", "c")]
    assert figures([out])["silent pairs worded as safe / no interaction (target 0)"] == "1"
    assert misses([out]) == (
        "in-99: not quoted b on a/b; silent pair not said b/c; silent pair worded as safe a/c; "
        "absent name not said zeta; reply 3,065 chars"
    )


def test_a_name_without_a_monograph_is_said_in_either_of_the_replys_wordings() -> None:
    for said in (
        "Không tìm thấy “zeta” trong Dược thư.",
        "“zeta” không có chuyên luận riêng trong Dược thư này.",
    ):
        assert judge(ROW, turn(said), TITLES).absent_unsaid() == []
    assert judge(ROW, turn("Alfa và Beta."), TITLES).absent_unsaid() == ["zeta"]
