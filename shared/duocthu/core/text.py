"""Vietnamese text normalisation and word-boundary matching.

What a user sees is always NFC text with its diacritics. Folding (case fold, diacritics stripped,
đ→d) exists only for matching: a user may type "chong chi dinh" for "chống chỉ định".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Generic, TypeVar

from duocthu.core.tables import data_lines

T = TypeVar("T")
_WORD = re.compile(r"\w+", re.UNICODE)
# NFD leaves đ/Đ whole (they are letters, not d + mark), so they are mapped by hand.
_D_MAP = str.maketrans({"đ": "d", "Đ": "D"})


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Case-folded, diacritic-free form used only for matching."""
    decomposed = unicodedata.normalize("NFD", text.casefold().translate(_D_MAP))
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", stripped)


def words(text: str) -> list[str]:
    """Word tokens, case-folded, diacritics kept (NFC)."""
    return _WORD.findall(nfc(text).casefold())


def raw_words(text: str) -> list[str]:
    """Word tokens as written (NFC, case kept), position for position with `words`: for rules
    where letter case matters (a capitalised product name)."""
    return _WORD.findall(nfc(text))


def segment_ids(text: str, marks: str) -> list[int]:
    """For each word token of the text (as `words` splits it), the index of its segment: segments
    end at any character of `marks` (clauses at ",;.?!:", sentences at ".;:!?\n")."""
    ids: list[int] = []
    segment = 0
    for match in re.finditer(rf"\w+|[{re.escape(marks)}]", nfc(text)):
        if match.group(0)[0] in marks:
            segment += 1
        else:
            ids.append(segment)
    return ids


def folded_words(text: str) -> list[str]:
    return _WORD.findall(fold(nfc(text)))


def has_diacritics(token: str) -> bool:
    """True when the token carries Vietnamese marks or đ (its folded form differs)."""
    return fold(token) != token.casefold()


def token_matches(query_token: str, target_token: str) -> bool:
    """The diacritics rule: a token typed with marks must match them exactly; a token typed
    without marks matches the target's folded form."""
    if has_diacritics(query_token):
        return query_token.casefold() == target_token.casefold()
    return query_token.casefold() == fold(target_token)


def find_phrase(tokens: Sequence[str], phrase: Sequence[str]) -> int:
    """Index of the first contiguous occurrence of `phrase` in `tokens` (-1 if none).

    Both sides are whole tokens, so a match is always on word boundaries ("liều" never
    matches inside "quá liều" unless the phrase is the single token "liều").
    """
    n = len(phrase)
    if n == 0 or n > len(tokens):
        return -1
    first = phrase[0]
    for i in range(len(tokens) - n + 1):
        if tokens[i] == first and list(tokens[i : i + n]) == list(phrase):
            return i
    return -1


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
        self.max_len = 0

    def add(self, phrase: str, value: T, allow_folded: bool = True) -> None:
        tokens = tuple(words(phrase))
        if not tokens:
            return
        key = tuple(fold(t) for t in tokens)
        self._by_folded.setdefault(key, []).append(_Entry(tokens, value, allow_folded))
        self.max_len = max(self.max_len, len(tokens))

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_folded.values())

    def matches(self, tokens: Sequence[str], folded_only: bool = False) -> list[PhraseMatch[T]]:
        """Every (span, value) whose phrase matches the span under the diacritics rule
        (with folded_only, every span whose folded form matches, marks ignored)."""
        folded = [fold(t) for t in tokens]
        found: list[PhraseMatch[T]] = []
        for start in range(len(tokens)):
            for length in range(1, min(self.max_len, len(tokens) - start) + 1):
                entries = self._by_folded.get(tuple(folded[start : start + length]))
                if not entries:
                    continue
                span = tokens[start : start + length]
                for entry in entries:
                    if folded_only:
                        ok = True
                    elif entry.allow_folded:
                        ok = all(token_matches(q, t) for q, t in zip(span, entry.tokens, strict=True))
                    else:
                        ok = all(q.casefold() == t for q, t in zip(span, entry.tokens, strict=True))
                    if ok:
                        found.append(PhraseMatch(start, length, entry.value))
        return found


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


def asks_yes_or_no(text: str) -> bool:
    """A question closed by "không" ("dùng được không?", "có … không ạ?")."""
    tail = [fold(t) for t in words(text)][-3:]
    return "khong" in tail or "ko" in tail


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """data/stop_words.txt: exact spellings (marks included) left out of a lexical query."""
    return frozenset(w for line in data_lines("stop_words.txt") for w in words(line))
