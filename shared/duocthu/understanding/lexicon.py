"""The clinical lexicon (data/clinical_lexicon.tsv): clinicians' abbreviations, ward shorthand,
chat spellings and slang read as the formulary's own words, once, before understanding reads the
message. Every later step (drug names, cues, patient facts) sees the formulary's words, so no cue
table needs a row per abbreviation. Terms kept as written (INR, ClCr) are never drug names."""

from __future__ import annotations

import re
from functools import lru_cache

from duocthu.core.tables import table_records
from duocthu.core.text import nfc


@lru_cache(maxsize=1)
def _lexicon() -> tuple[re.Pattern[str], dict[str, str]]:
    table = {nfc(r["term"]).casefold(): nfc(r["formulary"]) for r in table_records("clinical_lexicon.tsv")}
    alternatives = "|".join(re.escape(t) for t in sorted(table, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])", re.IGNORECASE), table


def lexicon_term(token: str) -> bool:
    """A word of the lexicon: an abbreviation or a term, never a drug name."""
    return nfc(token).casefold() in _lexicon()[1]


def formulary_wording(text: str) -> str:
    """The message in the formulary's words: each lexicon term replaced, a capital kept."""
    pattern, table = _lexicon()

    def replace(match: re.Match[str]) -> str:
        found = match.group(0)
        said = table[found.casefold()]
        if not said:
            return found
        # "Ko" opening a sentence stays capitalised; an abbreviation in capitals ("THA") is words
        capital = found[:1].isupper() and not found.isupper()
        return said[:1].upper() + said[1:] if capital else said

    return pattern.sub(replace, nfc(text))
