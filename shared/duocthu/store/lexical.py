"""The sparse `lexical` vector: weight 1 per distinct folded token.

A query vector with weight 1 per distinct query token then scores a chunk, by dot product inside
Qdrant, with the count of distinct query tokens the chunk contains: reference 09's lexical score.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from duocthu.core.text import folded_words


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
