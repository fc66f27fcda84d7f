"""How the formulary's sections name a population (data/population_phrases.tsv): read by the plan
(the words a "may this patient take it?" question is ordered by) and by the which-drug lookups."""

from __future__ import annotations

from functools import lru_cache

from duocthu.core.tables import table_rows
from duocthu.core.text import fold, folded_words, stop_words, words

# The populations a patient's told state puts them in (a pregnancy, nursing)
PREGNANT = "phu_nu_co_thai"
NURSING = "phu_nu_cho_con_bu"


@lru_cache(maxsize=1)
def _population_phrases() -> dict[str, tuple[str, ...]]:
    by_population: dict[str, list[str]] = {}
    for population, phrase in table_rows("population_phrases.tsv"):
        by_population.setdefault(population, []).append(phrase)
    return {k: tuple(v) for k, v in by_population.items()}


def population_wordings(population: str | None) -> tuple[str, ...]:
    """How the formulary's sections name a population ("trẻ em", "trẻ dưới" for tre_em)."""
    return _population_phrases().get(population or "", ())


def population_named(text: str) -> str | None:
    """The population a text names by a formulary wording and nothing more ("trong thai kỳ":
    phu_nu_co_thai; "3 tháng cuối thai kỳ" names a stage, no population)."""
    said = [fold(w) for w in words(text) if w not in stop_words()]
    phrases = _population_phrases().items()
    return next((p for p, wordings in phrases if any(folded_words(w) == said for w in wordings)), None)
