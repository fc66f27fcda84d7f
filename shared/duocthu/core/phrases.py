"""The one phrase matcher: whole-word phrases found in word tokens, exactly or under the
diacritics rule (`duocthu.core.text.token_matches`), one at a time or from a table of phrases
(`PhraseIndex`). Every reader of a question or of formulary text matches phrases here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from duocthu.core.caching import text_cache
from duocthu.core.text import fold, folded_words, token_matches, typed_matches, typed_token, words

T = TypeVar("T")
SENTENCE_CHARS = 1024  # longer than any one sentence of the book's


def phrase_starts(tokens: Sequence[str], phrase: Sequence[str], lenient: bool = False) -> Iterator[int]:
    """Where `phrase` stands in `tokens` as a contiguous run of whole words, first to last. Both
    sides are whole tokens, so a match is always on word boundaries ("liều" never matches inside
    "quá liều"). Exact: word for word as given. Lenient: the diacritics rule word by word, the
    phrase as the typed side (a word written without marks matches the folded text). An empty
    phrase stands nowhere."""
    n = len(phrase)
    if n == 0:
        return
    first = phrase[0]
    if not lenient:
        for i in range(len(tokens) - n + 1):
            if tokens[i] == first and list(tokens[i : i + n]) == list(phrase):
                yield i
        return
    typed = [typed_token(q) for q in phrase]
    head, rest = typed[0], list(enumerate(typed[1:], start=1))
    for i in range(len(tokens) - n + 1):
        if typed_matches(head, tokens[i]) and all(typed_matches(q, tokens[i + k]) for k, q in rest):
            yield i


# A sentence of the book is read by every facet and level of every patient turn that checks its
# drug, and by the answering lines: its words and where each folded word stands are kept per
# process. The book's sentences are the keys (a bounded set per index), hence a sentence's length.
@text_cache(maxsize=8192, max_text=SENTENCE_CHARS)
def word_places(text: str) -> tuple[tuple[str, ...], Mapping[str, list[int]]]:
    """The text's words, and where each folded word stands (a phrase is tried only there)."""
    tokens = tuple(words(text))
    at: dict[str, list[int]] = {}
    for i, token in enumerate(tokens):
        at.setdefault(fold(token), []).append(i)
    return tokens, at


def find_phrase(tokens: Sequence[str], phrase: Sequence[str], lenient: bool = False) -> int:
    """Index of the phrase's first occurrence in `tokens` (`phrase_starts`), -1 if none."""
    return next(phrase_starts(tokens, phrase, lenient), -1)


def contains_phrase(text: str, phrase: str) -> bool:
    """Folded, word-boundary phrase containment (diacritic-insensitive)."""
    return find_phrase(folded_words(text), folded_words(phrase)) >= 0


@dataclass(frozen=True, slots=True)
class PhraseMatch(Generic[T]):
    start: int
    length: int
    value: T


@dataclass(frozen=True, slots=True)
class _Entry(Generic[T]):
    tokens: tuple[str, ...]
    value: T
    allow_folded: bool


class PhraseIndex(Generic[T]):
    """Whole-token phrases -> values, matched on contiguous spans of a query.

    Lookup is by the span's folded form (one dict probe per span, so a query costs O(q·L) for
    q tokens and phrases up to L tokens, whatever the table size); each candidate is then checked
    with the diacritics rule, token by token. Phrases added with allow_folded=False match only as
    written (case-insensitive), never through folding.
    """

    def __init__(self) -> None:
        self._by_folded: dict[tuple[str, ...], list[_Entry[T]]] = {}
        self._heads: set[str] = set()  # every phrase's first word, folded: a span starts only there
        self.max_len = 0

    def add(self, phrase: str, value: T, allow_folded: bool = True) -> None:
        tokens = tuple(words(phrase))
        if not tokens:
            return
        key = tuple(fold(t) for t in tokens)
        self._by_folded.setdefault(key, []).append(_Entry(tokens, value, allow_folded))
        self._heads.add(key[0])
        self.max_len = max(self.max_len, len(tokens))

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_folded.values())

    def matches(self, tokens: Sequence[str], folded_only: bool = False) -> list[PhraseMatch[T]]:
        """Every (span, value) whose phrase matches the span under the diacritics rule, those
        matching word for word as written first: when some do, the others are dropped (with
        folded_only, every span whose folded form matches, marks ignored)."""
        folded = [fold(t) for t in tokens]
        found: list[PhraseMatch[T]] = []
        for start in range(len(tokens)):
            if folded[start] not in self._heads:
                continue
            for length in range(1, min(self.max_len, len(tokens) - start) + 1):
                entries = self._by_folded.get(tuple(folded[start : start + length]))
                if not entries:
                    continue
                span = tokens[start : start + length]
                kept = [e for e in entries if folded_only or self._accepts(span, e)]
                # the words as written win over a reading through folding: "viêm gan" is never
                # also "viêm gân" ("gan" has no marks, so it would match "gân" folded)
                exact = [e for e in kept if self._as_written(span, e)]
                if exact and not folded_only:
                    kept = exact
                found += [PhraseMatch(start, length, e.value) for e in kept]
        return found

    @staticmethod
    def _as_written(span: Sequence[str], entry: _Entry[T]) -> bool:
        return all(q.casefold() == t for q, t in zip(span, entry.tokens, strict=True))

    @classmethod
    def _accepts(cls, span: Sequence[str], entry: _Entry[T]) -> bool:
        if entry.allow_folded:
            return all(token_matches(q, t) for q, t in zip(span, entry.tokens, strict=True))
        return cls._as_written(span, entry)


def contains_any(text: str, phrases: Sequence[str]) -> bool:
    """Whether the text holds any of the phrases (`contains_phrase`; the text folded once)."""
    said = folded_words(text)
    return any(find_phrase(said, folded_words(phrase)) >= 0 for phrase in phrases)


def contains_every(text: str, phrases: Sequence[str]) -> bool:
    """Whether the text holds every one of the phrases, and there is one (`contains_phrase`)."""
    said = folded_words(text)
    return bool(phrases) and all(find_phrase(said, folded_words(phrase)) >= 0 for phrase in phrases)


def longest_spans(found: Sequence[PhraseMatch[T]]) -> list[PhraseMatch[T]]:
    """Non-overlapping matches, longest first, then earliest: "acid acetylsalicylic" beats "acid"."""
    taken: set[int] = set()
    kept: list[PhraseMatch[T]] = []
    best_span: dict[tuple[int, int], None] = {}
    for match in sorted(found, key=lambda m: (-m.length, m.start)):
        span = range(match.start, match.start + match.length)
        if (match.start, match.length) in best_span or not taken.intersection(span):
            taken.update(span)
            best_span[(match.start, match.length)] = None
            kept.append(match)
    return sorted(kept, key=lambda m: m.start)
