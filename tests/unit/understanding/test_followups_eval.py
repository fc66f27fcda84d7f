"""`duocthu eval followups`: how it scores (a scripted understander), and its figures on the gold
set (aggregates only: no held-out row is read here)."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.models.frame import QueryFrame
from duocthu.tools.evals.followups import report, score

from tests.goldsets import GOLD

ROW = {
    "id": "x-1",
    "category": "c",
    "turns": ["Liều paracetamol?", "còn trẻ em thì sao?"],
    "expect": [
        {"drugs": ["paracetamol"], "attribute": "lieu_luong_va_cach_dung"},
        {"drugs": ["paracetamol"], "population": "tre_em"},
    ],
}


def forgetful(message: str, history: Sequence[str], prior: QueryFrame | None) -> QueryFrame:
    """Keeps the drug only with a prior frame: right in a session, wrong sent as history."""
    if not history:
        return QueryFrame(
            turn_type="drug_attribute", drugs=["paracetamol"], attribute="lieu_luong_va_cach_dung"
        )
    drugs = prior.drugs if prior else ()
    return QueryFrame(turn_type="drug_attribute", drugs=list(drugs), population="tre_em")


def test_a_turn_right_only_in_a_session_is_scored_so_and_not_equal() -> None:
    got = score([ROW], forgetful)
    assert (got.turns, got.right_session, got.right_stateless) == (2, 2, 1)
    assert (got.follow_ups, got.equal) == (1, 0)
    assert got.misses == ["x-1#2 history [drugs]", "x-1#2 history != session"]  # ids, no text


def test_the_held_out_conversations_are_understood_alike_both_ways() -> None:
    figures = report(gold=GOLD)
    assert figures["held-out"]["equivalence"] == 1.0  # the target in docs/quality.md
    assert figures["dev"]["equivalence"] == 1.0
    assert figures["dev"]["accuracy_stateless"] == figures["dev"]["accuracy_session"]
