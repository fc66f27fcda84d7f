"""Candidate bounding: the drug_ids a turn's frame may name, and the prompt showing only them."""

from __future__ import annotations

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.frame import QueryFrame
from duocthu.understanding.candidates import CandidateSet, tagged_turn
from duocthu.understanding.prompt import user_message
from duocthu.understanding.tags import MessageReader


def bound_candidates(resolver, message, history=(), prior=None) -> CandidateSet:  # type: ignore[no-untyped-def]
    return tagged_turn(MessageReader(resolver), message, history, prior).candidates


def test_candidates_come_from_the_turn_history_and_prior_only(resolver: CatalogDrugResolver) -> None:
    prior = QueryFrame(turn_type="drug_attribute", drugs=("warfarin",), attribute="tuong_tac_thuoc")
    candidates = bound_candidates(resolver, "Tác dụng phụ của amoxiciline?", ("Liều Panadol?",), prior)
    # exact names of the history, fuzzy guesses for the turn (it names nothing exactly), the prior
    assert set(candidates.ids) == {"amoxicilin", "paracetamol", "warfarin"}
    assert candidates.named_ids == ()
    assert [s.drug_id for s in candidates.turn.suggestions] == ["amoxicilin"]
    assert candidates.names["paracetamol"][0] == "Paracetamol"  # its own name form first


def test_suggest_is_consulted_only_where_nothing_resolves(resolver: CatalogDrugResolver) -> None:
    candidates = bound_candidates(resolver, "Chống chỉ định của ibuprofen?")
    assert candidates.ids == ("ibuprofen",) and candidates.turn.suggestions == ()


def test_the_prompt_shows_only_the_bounded_set(resolver: CatalogDrugResolver) -> None:
    candidates = bound_candidates(resolver, "Aspirinol có tác dụng phụ gì?", ("Liều ibuprofen?",))
    text = user_message("Aspirinol có tác dụng phụ gì?", ("Liều ibuprofen?",), None, candidates)
    shown = {d.drug_id for d in resolver.catalog.drugs if f"\n{d.drug_id}\t" in text}
    assert shown == {"ibuprofen"}  # aspirinol brings no candidate: aspirin is never shown
    assert "NOT the whole formulary" in text
