"""The two sparse vectors of the index.

- `lexical`, on every part: weight 1 per distinct folded token. A query vector with weight 1 per
  distinct query token then scores a part, by dot product inside Qdrant, with the count of
  distinct query tokens the part contains: reference 09's lexical score.
- `lines`, on one point per sentence of every part (`line_points`): Okapi BM25. Each value is the
  token's saturated term frequency in the sentence and its section heading (k1, b, the book's
  average sentence length); the collection's IDF modifier weighs it by the token's rarity among
  all the book's sentences, inside Qdrant (Edge and server alike). A heading's words stand in
  each of its sentences: a question naming "quá liều" leans to that section's lines. Its terms
  are the folded syllables and each pair of adjacent ones (`line_terms`): a Vietnamese word is
  often two syllables ("dùng lại", "liều thấp"), and a pair is as rare as the word it spells.
"""

from __future__ import annotations

import hashlib
import itertools
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from duocthu.core.sentences import split_sentences
from duocthu.core.text import folded_words
from duocthu.models.chunk import Chunk

LINE_KIND = "line"  # the chunk_kind of a sentence point: no other read sees it
BM25_K1 = 1.2
BM25_B = 0.75
_LINE_NAMESPACE = uuid.UUID("5b1d7c4e-2f0a-4c1e-9a7b-3e6f0d2c8a91")


def token_index(token: str) -> int:
    """Stable 32-bit index of a folded token (blake2b; stable across processes and versions,
    unlike hash()). A collision would merge two tokens; at 4e9 slots and a formulary vocabulary
    of tens of thousands of tokens the chance of any collision is ~1e-1..1e-2, of one that
    matters to a given query far smaller."""
    return int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=4).digest(), "big")


@dataclass(frozen=True, slots=True)
class SparseTerms:
    indices: tuple[int, ...]
    values: tuple[float, ...]


def lexical_terms(tokens: Iterable[str]) -> SparseTerms:
    indices = sorted({token_index(t) for t in tokens})
    return SparseTerms(tuple(indices), tuple(1.0 for _ in indices))


def lexical_vector(text: str) -> SparseTerms:
    return lexical_terms(folded_words(text))


@dataclass(frozen=True, slots=True)
class LinePoint:
    id: str
    payload: dict[str, Any]
    terms: SparseTerms  # the `lines` vector


def bm25_terms(tokens: Sequence[str], average_length: float) -> SparseTerms:
    """The document side of BM25 (the IDF is the collection's modifier)."""
    counts: dict[int, int] = Counter(token_index(t) for t in tokens)
    norm = BM25_K1 * (1 - BM25_B + BM25_B * len(tokens) / average_length) if average_length else BM25_K1
    indices = sorted(counts)
    return SparseTerms(tuple(indices), tuple(counts[i] * (BM25_K1 + 1) / (counts[i] + norm) for i in indices))


def line_terms(tokens: Sequence[str]) -> list[str]:
    """Syllables and adjacent pairs of syllables: the terms of the `lines` vector."""
    return [*tokens, *(f"{a} {b}" for a, b in itertools.pairwise(tokens))]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each of the one splitter's sentences stands in `text` (start, end): a sentence point
    stores these, not the sentence, whose words its part already holds."""
    spans, cursor = [], 0
    for sentence in split_sentences(text):
        start = text.index(sentence, cursor)  # the splitter returns stripped slices, in order
        cursor = start + len(sentence)
        spans.append((start, cursor))
    return spans


def line_points(chunks: Sequence[Chunk]) -> list[LinePoint]:
    """One point per sentence of every part (the one splitter). Its payload is what a filter
    needs (drug, kind) and where the sentence stands in its part; the text, section and
    citation are read from the part (a sentence point copying them multiplied the index ~5x)."""
    lines = [(chunk, i, span) for chunk in chunks for i, span in enumerate(sentence_spans(chunk.text))]
    tokens = [
        line_terms(folded_words(f"{chunk.section_heading}. {chunk.text[start:end]}"))
        for chunk, _, (start, end) in lines
    ]
    average = sum(map(len, tokens)) / len(tokens) if tokens else 0.0
    points = []
    for (chunk, index, (start, end)), own in zip(lines, tokens, strict=True):
        payload = {
            "drug_id": chunk.drug_id,
            "chunk_kind": LINE_KIND,
            "part_id": chunk.id,
            "line_index": index,
            "start": start,
            "end": end,
        }
        line_id = str(uuid.uuid5(_LINE_NAMESPACE, f"{chunk.id}/{index}"))
        points.append(LinePoint(line_id, payload, bm25_terms(own, average)))
    return points
