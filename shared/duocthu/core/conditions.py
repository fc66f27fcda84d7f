"""The conditions a text names (data/condition_phrases.tsv): symptoms and diseases, as a question
or the formulary's own text writes them. Understanding reads a turn's complaints with it; the
which-drugs lookups read the monographs with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from duocthu.core.caching import text_cache
from duocthu.core.phrases import PhraseIndex, longest_spans
from duocthu.core.tables import table_records
from duocthu.core.terms import ordinary_words
from duocthu.core.text import fold, raw_words, words

ConditionKind = Literal["symptom", "disease"]


@dataclass(frozen=True, slots=True)
class ConditionMention:
    text: str  # the span as the user wrote it (case-folded tokens)
    normalized: str
    kind: ConditionKind
    start: int
    length: int


@lru_cache(maxsize=1)
def condition_index() -> PhraseIndex[tuple[str, ConditionKind] | None]:
    """Condition phrases, and the ordinary words that hold one's words (data/distinct_terms.tsv,
    kind word) with no value: being longer, "sốt ruột" takes the span "sốt" would, and names
    nothing."""
    index: PhraseIndex[tuple[str, ConditionKind] | None] = PhraseIndex()
    for row in table_records("condition_phrases.tsv"):
        kind = row["kind"]
        if kind not in ("symptom", "disease"):
            raise ValueError(f"condition_phrases.tsv: unknown kind {kind!r}")
        index.add(row["phrase"], (row["normalized"], "symptom" if kind == "symptom" else "disease"))
    for term in ordinary_words():
        index.add(term, None)
    return index


@lru_cache(maxsize=1)
def _condition_kinds() -> dict[str, ConditionKind]:
    kinds: dict[str, ConditionKind] = {}
    for row in table_records("condition_phrases.tsv"):
        kind: ConditionKind = "symptom" if row["kind"] == "symptom" else "disease"
        kinds.setdefault(fold(row["normalized"]), kind)
    return kinds


def condition_kind(normalized: str) -> ConditionKind | None:
    """Whether a normalised condition ("đau", "đau thắt ngực") is a symptom or a disease, if known."""
    return _condition_kinds().get(fold(normalized))


@lru_cache(maxsize=1)
def _condition_leads() -> PhraseIndex[str]:
    """The words a disease's proper name follows ("bệnh", "hội chứng": cue kind `condition_lead`
    of data/understanding_cues.tsv, the table understanding reads them from too)."""
    index: PhraseIndex[str] = PhraseIndex()
    for row in table_records("understanding_cues.tsv"):
        if row["kind"] == "condition_lead":
            index.add(row["phrase"], "")
    return index


# Organ-function states are patient facts, stated at a level: the condition asked only when the
# question names no other, and a band, not a condition, where a contraindication names them.
ORGAN_FUNCTION_CONDITIONS = frozenset({"suy thận", "suy gan", "xơ gan"})


@text_cache(maxsize=4096)
def find_conditions(text: str) -> tuple[ConditionMention, ...]:
    """Conditions named in the text, longest phrase first on overlaps, in text order: the table's
    phrases, and an eponym after a `condition_lead` ("bệnh Crohn", "hội chứng Cushing")."""
    tokens = words(text)
    spans = longest_spans(condition_index().matches(tokens))
    found = [
        ConditionMention(
            " ".join(tokens[m.start : m.start + m.length]), m.value[0], m.value[1], m.start, m.length
        )
        for m in spans
        if m.value is not None
    ]
    taken = {i for m in spans for i in range(m.start, m.start + m.length)}
    raw = raw_words(text)
    leads = longest_spans(_condition_leads().matches(tokens)) if len(raw) == len(tokens) else ()
    for lead in leads:
        lead_end = lead.start + lead.length
        end = lead_end
        while end < len(raw) and end - lead_end < 3 and raw[end][:1].isupper() and end not in taken:
            end += 1
        if end > lead_end and lead.start not in taken:
            span = " ".join(tokens[lead.start : end])
            found.append(ConditionMention(span, span, "disease", lead.start, end - lead.start))
    return tuple(sorted(found, key=lambda c: c.start))
