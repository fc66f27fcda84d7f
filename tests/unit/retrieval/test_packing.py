"""pack_evidence (reference 09 §4): a token budget, whole blocks in order, the rest omitted by id."""

from __future__ import annotations

import pytest
from duocthu.models.evidence import EvidenceItem, SourceRef
from duocthu.retrieval.packing import (
    BLOCK_OVERHEAD_TOKENS,
    CHARS_PER_TOKEN,
    block_tokens,
    estimate_tokens,
    pack_evidence,
)
from hypothesis import given
from hypothesis import strategies as st

REF = SourceRef(book="Dược thư", edition="test", section_heading="Thận trọng", page_start=1, page_end=1)


def item(n: int, chars: int) -> EvidenceItem:
    return EvidenceItem(
        id=f"p{n}",
        drug_id="thuoc",
        display_name="THUOC",
        section_key="than_trong",
        part_index=n,
        chunk_kind="prose",
        score=1.0,
        text=("Thận trọng ở người suy gan. " * 200)[:chars],
        source_refs=(REF,),
    )


def test_the_estimate_is_documented_characters_per_token() -> None:
    assert CHARS_PER_TOKEN == 3.0
    assert estimate_tokens("") == 1  # a block is never free
    assert estimate_tokens("abc") == 1 and estimate_tokens("abcd") == 2
    assert estimate_tokens("x" * 600) == 200
    assert block_tokens(item(0, 300)) == 100 + BLOCK_OVERHEAD_TOKENS


def test_packs_whole_blocks_in_order_and_lists_the_rest() -> None:
    # Given five blocks of 100 + overhead tokens each and room for three
    items = [item(n, 300) for n in range(5)]
    cost = 100 + BLOCK_OVERHEAD_TOKENS
    # When packed
    packed = pack_evidence(items, max_tokens=3 * cost + cost // 2)
    # Then the first three, whole and untouched, then the others by id, in order
    assert packed.evidence == tuple(items[:3])
    assert [e.text for e in packed.evidence] == [i.text for i in items[:3]]
    assert packed.omitted_evidence_ids == ("p3", "p4")
    assert packed.tokens == 3 * cost


def test_a_block_that_exactly_fills_the_budget_fits() -> None:
    items = [item(0, 300), item(1, 300)]
    assert pack_evidence(items, max_tokens=2 * block_tokens(items[0])).omitted_evidence_ids == ()


def test_packing_stops_at_the_first_block_that_does_not_fit() -> None:
    # A later, smaller block would fit, but is never packed in place of a better one left out.
    items = [item(0, 300), item(1, 3000), item(2, 30)]
    packed = pack_evidence(items, max_tokens=block_tokens(items[0]) + block_tokens(items[2]) + 5)
    assert [e.id for e in packed.evidence] == ["p0"]
    assert packed.omitted_evidence_ids == ("p1", "p2")


def test_a_first_block_over_the_whole_budget_packs_nothing_rather_than_cutting_it() -> None:
    packed = pack_evidence([item(0, 3000), item(1, 30)], max_tokens=100)
    assert packed.evidence == () and packed.omitted_evidence_ids == ("p0", "p1")


def test_a_real_tokenizer_can_be_passed() -> None:
    items = [item(n, 300) for n in range(4)]
    words = pack_evidence(items, max_tokens=200, count_tokens=lambda text: len(text.split()))
    per_block = len(items[0].text.split()) + BLOCK_OVERHEAD_TOKENS
    assert len(words.evidence) == 200 // per_block


def test_the_default_budget_holds_a_whole_sample_size_shortlist() -> None:
    # Six parts of the chunker's largest size (800 characters) fit the reference's 6000 tokens.
    assert not pack_evidence([item(n, 800) for n in range(6)], max_tokens=6000).omitted_evidence_ids


def test_a_budget_below_one_token_is_a_program_error() -> None:
    with pytest.raises(ValueError):
        pack_evidence([item(0, 10)], max_tokens=0)


@given(st.lists(st.integers(min_value=0, max_value=2000), max_size=12), st.integers(1, 3000))
def test_packing_invariants(sizes: list[int], budget: int) -> None:
    items = [item(n, size) for n, size in enumerate(sizes)]
    packed = pack_evidence(items, budget)
    n = len(packed.evidence)
    assert packed.evidence == tuple(items[:n])  # a prefix, whole blocks
    assert packed.omitted_evidence_ids == tuple(i.id for i in items[n:])  # everything else, by id
    assert packed.tokens == sum(block_tokens(i) for i in packed.evidence) <= budget
    if n < len(items):  # it stopped because the next block did not fit
        assert packed.tokens + block_tokens(items[n]) > budget
