"""The formulary's own wordings of what a user asks about, from the data tables: other wordings
of a finding (data/formulary_wordings.tsv: "hạ kali máu" is "hạ kali huyết"), the wider findings
that hold one (data/broader_findings.tsv), the wordings sections use for a population
(data/population_phrases.tsv) and the avoidance wordings of a population's own section
(data/population_advice.tsv). A phrase is searched in every wording of it. Pure: no store.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from duocthu.core.caching import text_cache
from duocthu.core.tables import table_rows
from duocthu.core.text import fold, nfc, token_matches, words


@lru_cache(maxsize=1)
def _wording_rows() -> tuple[tuple[tuple[str, ...], ...], ...]:
    return tuple(tuple(tuple(words(w)) for w in row if w) for row in table_rows("formulary_wordings.tsv"))


def _find_run(tokens: Sequence[str], run: Sequence[str]) -> int:
    """Where `run` (marked, as the data file writes it) stands in the user's tokens, under the
    diacritics rule; -1 if nowhere."""
    n = len(run)
    for i in range(len(tokens) - n + 1):
        if all(token_matches(t, r) for t, r in zip(tokens[i : i + n], run, strict=True)):
            return i
    return -1


@text_cache(maxsize=4096)
def wordings_of(phrase: str) -> tuple[str, ...]:
    """The phrase first, then each variant with a wording of data/formulary_wordings.tsv replaced
    by the other wordings of its row: "hạ kali máu" is also "hạ kali huyết"."""
    variants = [tuple(words(phrase))]
    for row in _wording_rows():
        for variant in list(variants):
            for wording in row:
                at = _find_run(variant, wording)
                if at >= 0:
                    variants += [(*variant[:at], *other, *variant[at + len(wording) :]) for other in row]
                    break
    return tuple(" ".join(v) for v in dict.fromkeys(variants))


@text_cache(maxsize=4096)
def other_wordings(text: str) -> str:
    """The words of the formulary's other wordings of what the text names ("magie": "magnesi";
    "đường máu": "glucose huyết"), those the text does not hold, in order: a question is read in
    the words a monograph may state its answer in."""
    tokens = tuple(words(text))
    said = {fold(t) for t in tokens}
    found = [
        w
        for row in _wording_rows()
        if any(_find_run(tokens, wording) >= 0 for wording in row)
        for wording in row
        for w in wording
    ]
    return " ".join(w for w in dict.fromkeys(found) if fold(w) not in said)


def as_written(text: str, wording: str) -> str:
    """The words of the part that matched `wording` (in any of its formulary wordings), as the
    part writes them: "loét và chảy máu tiêu hóa" where the data row says "xuất huyết"."""
    for variant in wordings_of(wording):
        pattern = r"\W+".join(re.escape(w) for w in words(variant))
        found = re.search(rf"(?<!\w){pattern}(?!\w)", nfc(text), re.IGNORECASE)
        if found:
            return found.group(0)
    return wording


@lru_cache(maxsize=1)
def _wider_rows() -> dict[str, tuple[str, ...]]:
    return {fold(row[0]): tuple(w for w in row[1:] if w) for row in table_rows("broader_findings.tsv")}


def wider_findings(phrase: str) -> tuple[str, ...]:
    """The formulary's wordings of wider findings that hold this one (data/broader_findings.tsv):
    "loét dạ dày" is part of "loét và xuất huyết tiêu hóa"."""
    return _wider_rows().get(fold(" ".join(words(phrase))), ())


@lru_cache(maxsize=1)
def population_advice() -> Mapping[str, tuple[str, tuple[str, ...]]]:
    """Population -> its own section and the wordings there that advise against use."""
    rows: dict[str, tuple[str, list[str]]] = {}
    for population, section_key, wording in table_rows("population_advice.tsv"):
        rows.setdefault(population, (section_key, []))[1].append(wording)
    return {k: (key, tuple(wordings)) for k, (key, wordings) in rows.items()}


def advice_sections() -> frozenset[str]:
    """The population sections whose avoidance wordings a relation lookup reads."""
    return frozenset(section_key for section_key, _ in population_advice().values())
