"""How directly a drug's chỉ định names the condition a which-drug question asks: the order of a
reverse lookup's drugs, read from the text, never from word overlap alone.

Each part is read at the condition's first mention as `reading.first_mention` finds it, in that
mention's sentence (ended by . ; ! ? or a line break, not by ":", so a heading reads with its
clause):

- "direct": the sentence names it as what the drug is for ("Tăng huyết áp: amlodipin được chỉ
  định …", "Giảm đau mức độ nhẹ đến vừa: đau đầu, …");
- "indirect": a cue of data/indication_directness.tsv makes it a second-line, add-on,
  combination-only or preventive use ("Tăng huyết áp kháng trị", "khi các thuốc khác không phù
  hợp", "Phối hợp với … trong phác đồ");
- "state": it stands after a patient or cause lead ("ở người rung nhĩ", "phù do suy tim"), or
  only inside another condition's name.

A drug reads as its most direct part; the drugs sort by that, their search score breaking ties.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

from duocthu.core.phrases import phrase_starts
from duocthu.core.sections import INDICATION_SECTION
from duocthu.core.tables import table_rows
from duocthu.core.text import segment_ids, words
from duocthu.models.evidence import EvidenceItem
from duocthu.retrieval.reverse.reading import allows_lenient, first_mention
from duocthu.retrieval.reverse.wordings import wordings_of

Directness = Literal["direct", "indirect", "state"]
RANK: dict[Directness, int] = {"direct": 0, "indirect": 1, "state": 2}
_REACHES = ("before", "sentence", "neutral")
_SENTENCE = ".;!?\n"


@lru_cache(maxsize=1)
def _cues() -> dict[str, tuple[tuple[str, ...], ...]]:
    """data/indication_directness.tsv: reach -> its phrases as word tuples."""
    by_reach: dict[str, list[tuple[str, ...]]] = {reach: [] for reach in _REACHES}
    for phrase, reach in table_rows("indication_directness.tsv"):
        if reach not in _REACHES:
            raise ValueError(f"indication_directness.tsv: a cue's reach is one of {_REACHES}, not {reach!r}")
        by_reach[reach].append(tuple(words(phrase)))
    return {reach: tuple(phrases) for reach, phrases in by_reach.items()}


def _runs(tokens: Sequence[str], phrases: Sequence[tuple[str, ...]], start: int, stop: int) -> list[range]:
    """The word spans in [start, stop) where one of the phrases stands."""
    return [
        range(i, i + len(p)) for p in phrases for i in phrase_starts(tokens, p) if start <= i <= stop - len(p)
    ]


def sentence_directness(text: str, at: int, length: int) -> Directness:
    """How the sentence holding the mention of `length` words at word `at` names it: "direct" or
    "indirect" (a mention after a lead is the caller's "state")."""
    tokens, sentences = words(text), segment_ids(text, _SENTENCE)
    first = at
    while first > 0 and sentences[first - 1] == sentences[at]:
        first -= 1
    last = min(at + length, len(tokens))
    while last < len(tokens) and sentences[last] == sentences[at]:
        last += 1
    cues = _cues()
    masked = {i for span in _runs(tokens, cues["neutral"], first, last) for i in span}
    cued = [
        span
        for reach, stop in (("sentence", last), ("before", at))
        for span in _runs(tokens, cues[reach], first, stop)
        if not masked.issuperset(span)
    ]
    return "indirect" if cued else "direct"


# The formulary's parts, not users' messages, are the keys: a bounded set per index, read by both
# the ranking and the reply's lines of every which-drug turn.
@lru_cache(maxsize=4096)
def part_directness(text: str, indication: str) -> Directness | None:
    """How one chỉ định part names the indication in its most direct wording; None when it does
    not name it (a dense hit)."""
    found: list[Directness] = []
    for wording in wordings_of(indication):
        phrase = words(wording)
        for lenient in (False, True):
            if not phrase or (lenient and not allows_lenient(phrase)):
                break
            at, reading = first_mention(text, wording, INDICATION_SECTION, lenient)
            if at >= 0:
                found.append(sentence_directness(text, at, len(phrase)) if reading == "direct" else "state")
                break
    return min(found, key=RANK.__getitem__, default=None)


def drug_directness(items: Sequence[EvidenceItem], indication: str) -> Directness:
    """A drug's most direct chỉ định part; "direct" when none names the indication (dense hits
    keep their score order)."""
    read = [
        part_directness(item.text, indication) for item in items if item.section_key == INDICATION_SECTION
    ]
    return min((d for d in read if d is not None), key=RANK.__getitem__, default="direct")
