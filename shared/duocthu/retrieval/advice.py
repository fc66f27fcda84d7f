"""What a line says against using the drug: a contraindication, or a wording that advises against
use ("không khuyến cáo", "tránh dùng": data/population_advice.tsv). A decision is answered by
such a line first; the book's own grade is kept, advice is never made a bar."""

from __future__ import annotations

from functools import cache

from duocthu.core.sections import CONTRAINDICATION_SECTION
from duocthu.core.text import words
from duocthu.models.evidence import RankedLine
from duocthu.retrieval.reverse.reading import advice_position
from duocthu.retrieval.reverse.wordings import population_advice


@cache
def _against_use() -> tuple[tuple[str, ...], ...]:
    """The wordings that advise against use (data/population_advice.tsv), as words."""
    return tuple(dict.fromkeys(tuple(words(w)) for _, ws in population_advice().values() for w in ws))


def advises_against(text: str) -> bool:
    """The sentence advises against use in a wording of data/population_advice.tsv, read as the
    which-drugs lookup reads those wordings (`advice_position`: never right after "không")."""
    return any(advice_position(text, wording) >= 0 for wording in _against_use())


def directs(line: RankedLine) -> bool:
    """The line contraindicates or advises against use."""
    return line.section_key == CONTRAINDICATION_SECTION or advises_against(line.text)
