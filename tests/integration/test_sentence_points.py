"""Sentence points hold a span of their part, not the sentence (INDEX_LAYOUT 3): on the whole
sample, the answering lines read back are the ones layout 2 stored in each point, verbatim."""

from __future__ import annotations

from typing import Any

from duocthu.core.sentences import split_sentences
from duocthu.core.text import folded_words
from duocthu.ingest.chunking import chunk_monograph
from duocthu.models.source import Monograph
from duocthu.store.lexical import bm25_terms, line_points, line_terms


def _layout_2(chunks: list[Any]) -> dict[tuple[str, int], dict[str, Any]]:
    """What a layout-2 sentence point carried: the sentence and its part's fields."""
    return {
        (chunk.id, index): {
            "text": sentence,
            "drug_id": chunk.drug_id,
            "display_name": chunk.display_name,
            "section_key": chunk.section_key,
            "part_index": chunk.part_index,
            "source_refs": (chunk.source_ref,),
        }
        for chunk in chunks
        for index, sentence in enumerate(split_sentences(chunk.text))
    }


def test_every_span_is_the_splitters_sentence_with_the_same_bm25_terms(
    sample_records: list[Monograph],
) -> None:
    chunks = [c for r in sample_records for c in chunk_monograph(r)]
    by_id = {c.id: c for c in chunks}
    points = line_points(chunks)
    expected = _layout_2(chunks)
    assert len(points) == len(expected)
    lengths = [
        len(line_terms(folded_words(f"{c.section_heading}. {s}")))
        for c in chunks
        for s in split_sentences(c.text)
    ]
    average = sum(lengths) / len(lengths)
    for point in points:
        part = by_id[point.payload["part_id"]]
        sentence = part.text[point.payload["start"] : point.payload["end"]]
        assert sentence == expected[(part.id, point.payload["line_index"])]["text"]
        own = line_terms(folded_words(f"{part.section_heading}. {sentence}"))
        assert point.terms == bm25_terms(own, average)
        assert set(point.payload) == {"drug_id", "chunk_kind", "part_id", "line_index", "start", "end"}


def test_lines_read_back_carry_their_parts_text_section_and_citation(
    sample_index: Any, sample_records: list[Monograph]
) -> None:
    store, _, _ = sample_index
    chunks = [c for r in sample_records for c in chunk_monograph(r)]
    expected = _layout_2(chunks)
    read = 0
    for record in sample_records:
        tokens = ["chong", "chi", "dinh", "than", "trong", "lieu", "tre", "em", "thai"]
        for line in store.search_lines(tokens, drug_id=record.drug_id, limit=64):
            want = expected[(line.part_id, line.line_index)]
            assert (line.text, line.drug_id, line.display_name) == (
                want["text"],
                want["drug_id"],
                want["display_name"],
            )
            assert (line.section_key, line.part_index) == (want["section_key"], want["part_index"])
            assert line.source_refs == want["source_refs"]
            read += 1
    assert read > 40 * 20
