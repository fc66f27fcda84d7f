"""Terms that hold the words of a finding but are not that finding (data/distinct_terms.tsv):
"phù hợp" is no oedema, "thiếu máu cục bộ" (ischaemia) no anaemia, "ho gà" no cough to treat.

Every search that decides whether a text names a finding consults them: the which-drugs lookups
(`duocthu.retrieval.reverse`) and the patient's safety facets (`duocthu.retrieval.safety`).
Understanding reads the ordinary words among them as no condition at all
(`duocthu.understanding.cues.find_conditions`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from duocthu.core.tables import table_records
from duocthu.core.text import fold, words

KINDS = ("word", "condition")


@lru_cache(maxsize=1)
def _distinct_terms() -> dict[str, tuple[tuple[tuple[str, ...], bool], ...]]:
    """The folded finding -> each term holding its words that is not it, as words, and whether
    that term is another condition (else an ordinary word)."""
    by_finding: dict[str, list[tuple[tuple[str, ...], bool]]] = {}
    for row in table_records("distinct_terms.tsv"):
        if row["kind"] not in KINDS:
            raise ValueError(f"distinct_terms.tsv: kind is word or condition, not {row['kind']!r}")
        term = (tuple(words(row["term"])), row["kind"] == "condition")
        by_finding.setdefault(fold(row["holds"]), []).append(term)
    return {finding: tuple(terms) for finding, terms in by_finding.items()}


def ordinary_words() -> tuple[str, ...]:
    """The terms of kind word ("phù hợp", "sốt ruột"), as written."""
    return tuple(" ".join(term) for terms in _distinct_terms().values() for term, other in terms if not other)


def inside_distinct_terms(tokens: Sequence[str], phrase: Sequence[str], conditions: bool = True) -> set[int]:
    """Word indices of the text (`words` tokens) covered by a term that holds the phrase but is not
    it: ordinary words always, other conditions too when `conditions`. Terms match as written."""
    covered: set[int] = set()
    for term, is_condition in _distinct_terms().get(fold(" ".join(phrase)), ()):
        if is_condition and not conditions:
            continue
        n = len(term)
        for j in range(len(tokens) - n + 1):
            if tuple(tokens[j : j + n]) == term:
                covered.update(range(j, j + n))
    return covered


def names_finding(tokens: Sequence[str], start: int, length: int) -> bool:
    """Whether the run of words at `start` names the finding it spells, rather than standing inside
    a term that holds it ("thiếu máu" inside "bệnh tim thiếu máu cục bộ" does not)."""
    inside = inside_distinct_terms(tokens, tokens[start : start + length])
    return not inside.issuperset(range(start, start + length))
